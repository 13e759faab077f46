// Test support: a real `ws` client speaking to /tunnel the way guacamole-common-js does, that
// checks the tunnel's framing rules on every message it receives (whole instructions only)
// and lets tests wait for instructions and for the close frame.
import { request } from 'node:http';
import { GuacParser, encodeInstructionUtf16, type GuacInstruction } from '@overlay-companion/guac';
import { WebSocket } from 'ws';

export interface ReceivedMessage {
  text: string;
  instructions: GuacInstruction[];
}

export interface CloseInfo {
  code: number;
  reason: string;
}

/** How often guacamole-common-js's client says `nop` to keep its connection alive. */
const KEEP_ALIVE_MS = 5_000;

export class TunnelClient {
  readonly messages: ReceivedMessage[] = [];
  readonly instructions: GuacInstruction[] = [];
  /** Framing violations seen (a message ending mid-instruction); tests expect none. */
  readonly framingErrors: string[] = [];
  readonly closed: Promise<CloseInfo>;
  private listeners: Array<() => void> = [];
  /** Set false to stop acknowledging frames (to hold the server back). */
  ackFrames = true;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary) => {
      const text = data.toString('utf8');
      if (isBinary) this.framingErrors.push('binary message');
      // A fresh parser per message: the browser's parser does not carry state across messages.
      // UTF-16 lengths, as guacamole-common-js 1.5.0 counts them.
      const parser = new GuacParser({ lengthUnit: 'utf16' });
      let instructions: GuacInstruction[] = [];
      try {
        instructions = parser.push(text);
        if (parser.buffered > 0)
          this.framingErrors.push(`message ends mid-instruction: ${text.slice(-80)}`);
      } catch (err) {
        this.framingErrors.push(`unparsable message: ${String(err)}`);
      }
      this.messages.push({ text, instructions });
      this.instructions.push(...instructions);
      // Acknowledge frames as guacamole-common-js does after drawing them; servers that do flow
      // control send nothing new until the previous frame is acknowledged.
      for (const instruction of instructions) {
        if (instruction.opcode === 'sync' && this.ackFrames && ws.readyState === WebSocket.OPEN) {
          ws.send(encodeInstructionUtf16('sync', instruction.args[0] ?? '0'));
        }
      }
      for (const listener of this.listeners) listener();
    });
    // guacamole-common-js's Guacamole.Client says `nop` every 5 s; guacd aborts a user it has
    // heard nothing from for 15 s ("User is not responding"), which a desktop slow to show its
    // first frame under load would otherwise earn this client and no browser.
    const keepAlive = setInterval(() => {
      if (ws.readyState === WebSocket.OPEN) ws.send(encodeInstructionUtf16('nop'));
    }, KEEP_ALIVE_MS);
    keepAlive.unref();
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        clearInterval(keepAlive);
        resolve({ code, reason: reason.toString('utf8') });
        for (const listener of this.listeners) listener();
      });
    });
  }

  /** Opens /tunnel with a tunnel ticket (see BrowserSession.ticket or testAccess). */
  static async open(
    baseUrl: string,
    ticket: string,
    query = 'width=1024&height=768&dpi=96',
  ): Promise<TunnelClient> {
    const url = `${baseUrl.replace(/^http/, 'ws').replace(/\/$/, '')}/tunnel?${query}&ticket=${encodeURIComponent(ticket)}`;
    const ws = new WebSocket(url, 'guacamole', { origin: new URL(baseUrl).origin });
    const client = new TunnelClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(opcode: string, ...args: (string | number)[]): void {
    this.ws.send(encodeInstructionUtf16(opcode, ...args));
  }

  sendRaw(text: string): void {
    this.ws.send(text);
  }

  /** Resolves with the first instruction from index `from` on that matches. */
  waitFor(
    match: (instruction: GuacInstruction) => boolean,
    { from = 0, timeoutMs = 10_000, what = 'instruction' } = {},
  ): Promise<GuacInstruction> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.instructions.slice(from).find(match);
        if (found) {
          done();
          resolve(found);
        } else if (this.ws.readyState === WebSocket.CLOSED) {
          done();
          reject(new Error(`tunnel closed before ${what} arrived; got ${this.summary()}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${what} within ${timeoutMs} ms; got ${this.summary()}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== check);
      };
      this.listeners.push(check);
      check();
    });
  }

  waitForOpcode(
    opcode: string,
    options: { from?: number; timeoutMs?: number } = {},
  ): Promise<GuacInstruction> {
    return this.waitFor((i) => i.opcode === opcode, { ...options, what: `'${opcode}'` });
  }

  close(): Promise<CloseInfo> {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)
      this.ws.close(1000);
    return this.closed;
  }

  private summary(): string {
    const counts = new Map<string, number>();
    for (const { opcode } of this.instructions) counts.set(opcode, (counts.get(opcode) ?? 0) + 1);
    return JSON.stringify(Object.fromEntries(counts));
  }
}

/**
 * Sends a raw WebSocket upgrade request to `path` (query included) and resolves with the HTTP
 * status and body it was refused with; rejects if the upgrade is accepted. By default it sends
 * the bridge's own Origin, as a page of the bridge would; `origin: null` sends none.
 */
export function refusedUpgrade(
  baseUrl: string,
  path: string,
  options: { protocol?: string; origin?: string | null } = {},
): Promise<{ status: number; body: string }> {
  const origin = options.origin === undefined ? new URL(baseUrl).origin : options.origin;
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
        ...(options.protocol ? { 'Sec-WebSocket-Protocol': options.protocol } : {}),
        ...(origin === null ? {} : { Origin: origin }),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      reject(new Error('the upgrade was accepted'));
    });
    req.on('error', reject);
    req.end();
  });
}
