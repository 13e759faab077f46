// RfbClient: one RFB 3.8 connection to a VNC server, as the gateway session sees it. Owns the
// connection once dialled (the socket and the handshake are rfbDial.ts's), the server-message loop
// and the client-to-server messages; the clipboard exchange is RfbClipboard's (clipboard.ts). Anything the server does wrong ends this
// connection with an RfbError ('error' then 'close') and never throws out of the process. Flow
// control is the owner's: it asks for updates.
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { ByteReader } from './byteReader.js';
import { RfbClipboard } from './clipboard.js';
import { FENCE_MESSAGE, RfbFences } from './fence.js';
import * as msg from './clientMessages.js';
import type { RfbScreen } from './clientMessages.js';
import { DEFAULT_ENCODINGS, Encoding } from './encodings.js';
import { RfbError, protocolError } from './errors.js';
import { dialRfb, RFB_LIMITS, type RfbConnectOptions } from './rfbDial.js';
import { Framebuffer } from './framebuffer.js';
import {
  readFramebufferUpdate,
  type RfbCursor,
  type RfbRect,
  type UpdateContext,
} from './framebufferUpdate.js';
import { SILENCE_DEADLINE_MS, SILENCE_PROBE_AFTER_MS, SilenceWatch } from './silenceWatch.js';
import { ZrleDecoder } from './zrle.js';

export { RfbError } from './errors.js';
export type { RfbErrorCode } from './errors.js';
export type { RfbCursor, RfbRect } from './framebufferUpdate.js';

export interface RfbClientEvents {
  /** Pixels in `framebuffer` changed (already written). */
  rect: [RfbRect];
  /** CopyRect already applied to `framebuffer`. */
  copy: [{ srcX: number; srcY: number } & RfbRect];
  /** Framebuffer reallocated (DesktopSize / ExtendedDesktopSize). */
  resize: [{ width: number; height: number }];
  cursor: [RfbCursor];
  /** End of one FramebufferUpdate message. */
  frameEnd: [];
  /** Server cut text (UTF-8 via Extended Clipboard when offered, else Latin-1). */
  clipboard: [string];
  bell: [];
  /** Protocol / auth / network error; followed by close. */
  error: [RfbError];
  close: [];
}

export interface RfbStats {
  /** Milliseconds spent decoding pixel data (Raw, ZRLE incl. inflate), excluding network waits. */
  decodeMs: number;
  /** Pixel rectangles applied, in total and per encoding. */
  rects: number;
  raw: number;
  copyRect: number;
  zrle: number;
  /** FramebufferUpdate messages received. */
  updates: number;
}

const SERVER_FRAMEBUFFER_UPDATE = 0;
const SERVER_SET_COLOUR_MAP = 1;
const SERVER_BELL = 2;
const SERVER_CUT_TEXT = 3;

export class RfbClient extends EventEmitter<RfbClientEvents> {
  readonly name: string;
  supportsSetDesktopSize = false;
  readonly stats: RfbStats = { decodeMs: 0, rects: 0, raw: 0, copyRect: 0, zrle: 0, updates: 0 };

  private readonly fb: Framebuffer;
  private readonly zrle = new ZrleDecoder(RFB_LIMITS.maxPixels * 5);
  private readonly clipboard: RfbClipboard;
  private readonly fences: RfbFences;
  private screens: RfbScreen[] = [];
  private closed = false;
  private silence: SilenceWatch | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly reader: ByteReader,
    init: { width: number; height: number; name: string },
  ) {
    super();
    this.name = init.name;
    this.fb = new Framebuffer(init.width, init.height);
    this.clipboard = new RfbClipboard(reader, {
      send: (data) => this.send(data),
      received: (text) => this.emit('clipboard', text),
    });
    this.fences = new RfbFences(reader, (data) => this.send(data));
  }

  /**
   * Resolves once the server has processed everything sent before this call: 'server' when it
   * confirmed so (an RFB fence), 'written' when it cannot confirm (no fence support: the input
   * is in its socket), 'lost' when the connection ends first.
   */
  async confirmDelivery(): Promise<'server' | 'written' | 'lost'> {
    if (this.closed) return 'lost';
    if (!this.fences.supported) return 'written';
    return (await this.fences.confirm()) ? 'server' : 'lost';
  }

  /** True once the server has sent its Extended Clipboard capabilities. */
  get extendedClipboard(): boolean {
    return this.clipboard.extended;
  }
  // Writable because it was a plain public field before the clipboard moved out; keeps the API.
  set extendedClipboard(value: boolean) {
    this.clipboard.extended = value;
  }

  get width(): number {
    return this.fb.width;
  }
  get height(): number {
    return this.fb.height;
  }
  /** width*height*4 bytes, RGBA, alpha 255. Replaced (not resized) on 'resize'. */
  get framebuffer(): Buffer {
    return this.fb.buffer;
  }

  /** Connects, authenticates, and sets pixel format and encodings. Rejects with RfbError. */
  static connect(options: RfbConnectOptions): Promise<RfbClient> {
    return dialRfb(options, (socket, reader, init, where) => {
      const client = new RfbClient(socket, reader, init);
      client.start(where, options.encodings ?? DEFAULT_ENCODINGS, {
        probeAfterMs: options.silenceProbeMs ?? SILENCE_PROBE_AFTER_MS,
        deadlineMs: options.silenceTimeoutMs ?? SILENCE_DEADLINE_MS,
      });
      return client;
    });
  }

  requestUpdate(incremental: boolean, rect?: RfbRect): void {
    const r = rect ?? { x: 0, y: 0, width: this.fb.width, height: this.fb.height };
    const x = clamp(r.x, 0, this.fb.width);
    const y = clamp(r.y, 0, this.fb.height);
    const width = clamp(r.width, 0, this.fb.width - x);
    const height = clamp(r.height, 0, this.fb.height - y);
    this.send(msg.framebufferUpdateRequest(incremental, x, y, width, height));
  }

  /** Mask bits: 1 left, 2 middle, 4 right, 8 wheel up, 16 wheel down. */
  pointer(x: number, y: number, buttonMask: number): void {
    this.send(
      msg.pointerEvent(clamp(x, 0, this.fb.width - 1), clamp(y, 0, this.fb.height - 1), buttonMask),
    );
  }

  key(keysym: number, down: boolean): void {
    this.send(msg.keyEvent(keysym, down));
  }

  /** SetDesktopSize (251) when the server supports it, else nothing. The result arrives as 'resize'. */
  setDesktopSize(width: number, height: number): void {
    if (!this.supportsSetDesktopSize) return;
    const w = clamp(width, 1, RFB_LIMITS.maxSide);
    const h = clamp(height, 1, RFB_LIMITS.maxSide);
    // Keep the first screen's id and flags (the spec asks clients to preserve them); one screen
    // covering the whole desktop is what a browser window maps to.
    const first = this.screens[0];
    this.send(
      msg.setDesktopSize(w, h, [
        { id: first?.id ?? 0, x: 0, y: 0, width: w, height: h, flags: first?.flags ?? 0 },
      ]),
    );
  }

  /** Extended Clipboard (UTF-8) when offered, else Latin-1 ClientCutText. */
  setClipboard(text: string): void {
    this.clipboard.set(text);
  }

  close(): void {
    this.shutdown(undefined);
  }

  /** Milliseconds since the server last sent anything (0 before the watch starts). */
  get quietForMs(): number {
    return this.silence?.quietForMs ?? 0;
  }

  private start(
    where: string,
    encodings: readonly number[],
    silence: { probeAfterMs: number; deadlineMs: number },
  ): void {
    this.silence = new SilenceWatch({
      ...silence,
      // A non-incremental request must be answered even when nothing changed; one pixel keeps
      // the answer tiny. (Its pixel reaches the browsers as a small frame: a keep-alive that
      // shows the picture is still current.)
      probe: () => this.requestUpdate(false, { x: 0, y: 0, width: 1, height: 1 }),
      silent: (ms) =>
        this.shutdown(
          new RfbError(
            'timeout',
            `VNC server at ${where} stopped answering: nothing arrived for ${(ms / 1000).toFixed(1)} s, not even the answer to an update request. Check the network between the gateway and the server and whether the server is overloaded; the desktop is reconnected when it answers again.`,
          ),
        ),
    });
    this.socket.on('data', (chunk: Buffer) => {
      this.silence?.heard();
      this.reader.push(chunk);
    });
    // Network ends go through the reader so the message loop can tell a clean close between
    // messages from one in the middle of a message.
    this.socket.on('error', (error) =>
      this.reader.fail(
        new RfbError('closed', `Connection to VNC server at ${where} failed (${error.message}).`, {
          cause: error,
        }),
      ),
    );
    this.socket.on('close', () =>
      this.reader.fail(new RfbError('closed', `VNC server at ${where} closed the connection.`)),
    );
    this.send(msg.setPixelFormat());
    this.send(msg.setEncodings(encodings));
    void this.messageLoop(where);
  }

  private async messageLoop(where: string): Promise<void> {
    const ctx = this.updateContext();
    let inMessage = false;
    try {
      for (;;) {
        inMessage = false;
        const type = await this.reader.u8();
        inMessage = true;
        switch (type) {
          case SERVER_FRAMEBUFFER_UPDATE:
            await readFramebufferUpdate(ctx);
            this.silence?.drew();
            this.emit('frameEnd');
            break;
          case SERVER_SET_COLOUR_MAP: {
            // We asked for true colour; a colour map is meaningless, but skip it cleanly.
            const head = await this.reader.read(5);
            await this.reader.read(head.readUInt16BE(3) * 6);
            break;
          }
          case SERVER_BELL:
            this.emit('bell');
            break;
          case SERVER_CUT_TEXT:
            await this.clipboard.readServerCutText();
            break;
          case FENCE_MESSAGE:
            await this.fences.readServerFence();
            break;
          default:
            throw protocolError(`unknown server message type ${type}`);
        }
      }
    } catch (error) {
      if (this.closed) return;
      if (error instanceof RfbError) {
        this.shutdown(
          error.code === 'closed' && inMessage
            ? new RfbError(
                'closed',
                `VNC server at ${where} closed the connection in the middle of a message.`,
              )
            : error,
        );
      } else {
        // A bug here or an exception thrown by an event listener: still only this connection ends.
        this.shutdown(
          new RfbError(
            'protocol',
            `Error while handling a message from ${where}: ${(error as Error).message}`,
            { cause: error },
          ),
        );
      }
    }
  }

  private updateContext(): UpdateContext {
    return {
      reader: this.reader,
      fb: this.fb,
      zrle: this.zrle,
      limits: RFB_LIMITS,
      stats: this.stats,
      rect: (rect) => this.emit('rect', rect),
      copy: (copy) => this.emit('copy', copy),
      resized: (width, height) => this.emit('resize', { width, height }),
      screens: (screens) => {
        this.supportsSetDesktopSize = true;
        if (screens.length > 0) this.screens = screens;
      },
      cursor: (cursor) => this.emit('cursor', cursor),
    };
  }

  private send(data: Buffer): void {
    if (!this.closed) this.socket.write(data);
  }

  /** Ends the connection once: 'error' (if any, and only if someone listens) then 'close'. */
  private shutdown(error: RfbError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.silence?.stop();
    this.fences.close();
    this.reader.fail(error ?? new RfbError('closed', 'RFB client closed'));
    this.socket.destroy();
    this.zrle.close();
    // An 'error' event with no listener would throw out of the event loop; the owner that
    // does not listen for errors still learns of the end through 'close'.
    if (error !== undefined && this.listenerCount('error') > 0) this.emit('error', error);
    this.emit('close');
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, Math.trunc(value)));
}

export { Encoding };
