// Test support: a SCRIPTED VIEWER — a plain `ws` client that speaks the viewer side of the
// protocol so bridge tests can run without a browser (the real Chromium viewer is exercised by
// the e2e suite). It obtains a ticket like a signed-in page does, records every message the bridge sends
// (checked against the protocol's schemas, so the bridge's output is validated too) and answers
// tool calls from per-tool scripts. desktop_state (who is in charge, who watches: it changes
// whenever a window comes or goes) is kept apart in `desktopStates`, so tests of the message
// flow read `received` as the relay sends it.
import {
  parseBridgeMessage,
  type BridgeToViewer,
  type DesktopStateMessage,
  type ToolCallMessage,
} from '@overlay-companion/protocol';
import WebSocket from 'ws';

export type Received =
  | Exclude<BridgeToViewer, { type: 'desktop_state' }>
  | { type: 'request_sync' }
  | { type: 'error'; message: string };

export type Script =
  | { result: Record<string, unknown> }
  | { error: { kind: string; message: string; retry_after_ms?: number } }
  | 'ignore';

export type ScriptFn = (call: ToolCallMessage) => Script | Promise<Script>;

export interface ScriptedViewerOptions {
  headless?: boolean;
  /** The Origin header; the bridge's own origin when omitted (as its page would send). */
  origin?: string;
}

/** Where viewer tickets come from: a signed-in browser session, or a TestBridge. */
export interface ViewerTarget {
  url: string;
  ticket(socket?: 'viewer'): Promise<string>;
  headlessTicket?(): Promise<string>;
}

export class ScriptedViewer {
  readonly received: Received[] = [];
  /** Every desktop_state the bridge sent, oldest first. */
  readonly desktopStates: DesktopStateMessage[] = [];
  /** Frames that failed the protocol's schemas (should stay empty). */
  readonly invalid: string[] = [];
  private readonly scripts = new Map<string, ScriptFn>();
  private readonly waiters = new Set<() => void>();
  private closedFlag = false;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: WebSocket.RawData) => {
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as ArrayBuffer).toString('utf8');
      this.onFrame(text);
    });
    ws.on('close', () => {
      this.closedFlag = true;
      this.wake();
    });
  }

  /**
   * Connects as a viewer window of `target` (a TestBridge, or any BrowserSession-like source of
   * viewer tickets); `headless` asks the target for a ticket of an in-process headless session.
   */
  static async connect(
    target: ViewerTarget,
    options: ScriptedViewerOptions = {},
  ): Promise<ScriptedViewer> {
    let ticket: string;
    if (options.headless === true) {
      if (target.headlessTicket === undefined) {
        throw new Error('this target cannot mint headless tickets (only the bridge process can)');
      }
      ticket = await target.headlessTicket();
    } else {
      ticket = await target.ticket('viewer');
    }
    return ScriptedViewer.connectWithTicket(target.url, ticket, options);
  }

  static connectWithTicket(
    baseUrl: string,
    ticket: string,
    options: ScriptedViewerOptions = {},
  ): Promise<ScriptedViewer> {
    const url = new URL(`/ws/viewer?ticket=${encodeURIComponent(ticket)}`, baseUrl);
    url.protocol = 'ws:';
    const ws = new WebSocket(url, { origin: options.origin ?? new URL(baseUrl).origin });
    const viewer = new ScriptedViewer(ws);
    return new Promise((resolve, reject) => {
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => reject(new Error(`upgrade refused: ${res.statusCode} ${body.trim()}`)));
      });
      ws.once('error', reject);
      ws.once('open', () => {
        // Resolve once hello arrived, so tests start from a known role.
        viewer.waitFor((m) => m.type === 'hello').then(() => resolve(viewer), reject);
      });
    });
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  get hello(): Extract<Received, { type: 'hello' }> {
    const hellos = this.received.filter((m) => m.type === 'hello');
    const last = hellos[hellos.length - 1];
    if (last === undefined) throw new Error('no hello yet');
    return last;
  }

  toolCalls(name?: string): ToolCallMessage[] {
    return this.received.filter(
      (m): m is ToolCallMessage =>
        m.type === 'tool_call' && (name === undefined || m.name === name),
    );
  }

  /** Answers every future tool_call named `name` with `script`. */
  on(name: string, script: ScriptFn | Script): this {
    this.scripts.set(name, typeof script === 'function' ? script : () => script);
    return this;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Sends one binary frame (a screenshot answer as imageFrame.ts lays it out, or garbage). */
  sendBinary(bytes: Uint8Array): void {
    this.ws.send(bytes, { binary: true });
  }

  waitFor(predicate: (m: Received) => boolean, timeoutMs = 5000): Promise<Received> {
    const found = this.received.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const hit = this.received.find(predicate);
        if (hit !== undefined) {
          done();
          resolve(hit);
        } else if (this.closedFlag) {
          done();
          reject(new Error('scripted viewer closed while waiting'));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`scripted viewer: no matching message within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  async close(): Promise<void> {
    if (this.closedFlag) return;
    const closed = new Promise<void>((resolve) => this.ws.once('close', () => resolve()));
    this.ws.close();
    await closed;
  }

  private onFrame(text: string): void {
    const parsed = parseBridgeMessage(text);
    if (!parsed.ok) {
      this.invalid.push(`${parsed.error}: ${text.slice(0, 200)}`);
      return;
    }
    if (parsed.message.type === 'desktop_state') this.desktopStates.push(parsed.message);
    else this.received.push(parsed.message);
    if (parsed.message.type === 'tool_call') void this.answer(parsed.message);
    this.wake();
  }

  private async answer(call: ToolCallMessage): Promise<void> {
    const script = this.scripts.get(call.name);
    if (script === undefined) return;
    const outcome = await script(call);
    if (outcome === 'ignore' || this.closedFlag) return;
    if ('result' in outcome)
      this.send({ type: 'tool_result', id: call.id, result: outcome.result });
    else this.send({ type: 'tool_error', id: call.id, ...outcome.error });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
