// The control channel to the bridge, framework-free: fetch a single-use ticket, open
// /ws/viewer?ticket=…, parse every frame with the protocol's parseBridgeMessage (a bad frame is
// logged and ignored; the socket stays up), send a captured screenshot as the protocol's one
// binary frame (its raw image bytes, no base64), and reconnect with the viewer's jittered backoff
// when the socket closes. It knows no tool but that one: messages go to `onMessage`, answers come
// back through `send`. The socket and ticket source are injected so tests drive it with fakes.
import {
  VIEWER_SOCKET_PATH,
  encodeImageFrame,
  encodeViewerMessage,
  parseBridgeMessage,
  type BridgeToViewer,
  type ViewerToBridge,
} from '@overlay-companion/protocol';
import { DEFAULT_BACKOFF, backoffDelay, type BackoffPolicy } from '../display/backoff.js';
import { fetchTicket } from '../net/tickets.js';
import { wsUrl, type PageLocation } from '../net/wsUrl.js';
import { CapturedScreenshot } from './screen/capturedScreenshot.js';

/** The part of the browser WebSocket the channel uses. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string | Uint8Array<ArrayBuffer>): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
}

const SOCKET_OPEN = 1;

export interface ChannelOptions {
  /** Returns the full ws(s):// URL to open, with a fresh ticket. */
  socketUrl: () => Promise<string>;
  openSocket: (url: string) => SocketLike;
  onMessage: (message: BridgeToViewer) => void;
  /** The socket is open (the bridge's hello follows). */
  onOpen?: () => void;
  /** The link is down; `retryAt` is when the next attempt starts (null: not retrying). */
  onDown?: (detail: string, retryAt: number | null) => void;
  onConnecting?: (attempt: number) => void;
  policy?: BackoffPolicy;
  random?: () => number;
  warn?: (message: string) => void;
}

export class ControlChannel {
  readonly #options: ChannelOptions;
  readonly #policy: BackoffPolicy;
  #socket: SocketLike | null = null;
  #running = false;
  #failures = 0;
  #openedAt = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #generation = 0;

  constructor(options: ChannelOptions) {
    this.#options = options;
    this.#policy = options.policy ?? DEFAULT_BACKOFF;
  }

  get isOpen(): boolean {
    return this.#socket?.readyState === SOCKET_OPEN;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#connect();
  }

  /** Close on purpose; no reconnect. */
  stop(): void {
    this.#running = false;
    this.#generation += 1;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const socket = this.#socket;
    this.#socket = null;
    if (socket !== null) {
      socket.onclose = null;
      socket.close(1000, 'The viewer closed the control channel.');
    }
  }

  /** Close and stay closed with a reason (e.g. an incompatible protocol version). */
  giveUp(detail: string): void {
    this.stop();
    this.#options.onDown?.(detail, null);
  }

  /**
   * Sends when open; returns false (and drops the message) otherwise. A screenshot the viewer
   * captured goes as one binary frame of its raw image (imageFrame.ts), not as base64 in JSON.
   */
  send(message: ViewerToBridge): boolean {
    const socket = this.#socket;
    if (socket === null || socket.readyState !== SOCKET_OPEN) return false;
    if (message.type === 'tool_result' && message.result instanceof CapturedScreenshot) {
      const shot = message.result;
      socket.send(
        encodeImageFrame(
          { type: 'tool_result_image', id: message.id, result: shot.meta },
          shot.image,
        ),
      );
      return true;
    }
    socket.send(encodeViewerMessage(message));
    return true;
  }

  async #connect(): Promise<void> {
    const generation = ++this.#generation;
    this.#options.onConnecting?.(this.#failures);
    let url: string;
    try {
      url = await this.#options.socketUrl();
    } catch (err) {
      if (generation !== this.#generation) return;
      this.#retry(err instanceof Error ? err.message : String(err));
      return;
    }
    if (generation !== this.#generation || !this.#running) return;
    let socket: SocketLike;
    try {
      socket = this.#options.openSocket(url);
    } catch (err) {
      this.#retry(
        `Could not open the control channel: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    this.#socket = socket;
    socket.onopen = () => {
      this.#openedAt = Date.now();
      this.#options.onOpen?.();
    };
    socket.onmessage = (event) => this.#receive(event.data as unknown);
    socket.onerror = () => {
      // A close event always follows; it carries the code worth reporting.
    };
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      if (this.#openedAt > 0 && Date.now() - this.#openedAt >= this.#policy.stableAfterMs) {
        this.#failures = 0;
      }
      this.#openedAt = 0;
      const reason = event.reason.trim();
      this.#retry(
        reason !== ''
          ? `The bridge closed the control channel: ${reason}`
          : `The control channel closed (code ${event.code}).`,
      );
    };
  }

  #receive(data: unknown): void {
    const parsed = parseBridgeMessage(data);
    if (!parsed.ok) {
      (this.#options.warn ?? console.warn)(`Ignored a control message: ${parsed.error}`);
      return;
    }
    this.#options.onMessage(parsed.message);
  }

  #retry(detail: string): void {
    if (!this.#running) return;
    const delay = backoffDelay(this.#failures, this.#policy, this.#options.random);
    this.#failures += 1;
    this.#options.onDown?.(detail, Date.now() + delay);
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      void this.#connect();
    }, delay);
  }
}

/**
 * Browser ticket source: a fresh single-use viewer ticket (POST /api/tickets, signed in and
 * CSRF-checked; see net/tickets.ts) per attempt, and the socket URL on this page's origin.
 */
export function ticketSocketUrl(
  location: PageLocation = window.location,
  ticket: () => Promise<string> = () => fetchTicket('viewer'),
): () => Promise<string> {
  return async () => {
    const value = await ticket();
    return wsUrl(`${VIEWER_SOCKET_PATH}?ticket=${encodeURIComponent(value)}`, location);
  };
}
