// Test support: a WebSocket client that does the upgrade by hand on a raw TCP socket and then
// reads nothing — a hung or hostile feed subscriber, as the bridge sees it (at most one chunk past
// the 101 answer is taken in, then the socket is paused and the kernel's buffers fill). Once the
// test has measured what it wanted, readAll() takes in what the bridge sent: the text frames and
// how it ended (a close frame's code and reason, or the connection dropped without one).
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export interface SilentSocketOutcome {
  textFrames: number;
  /** The close frame, when the bridge sent one. */
  close: { code: number; reason: string } | undefined;
  /** The bridge ended the connection (with or without a close frame) before the timeout. */
  ended: boolean;
}

const HEADER_END = '\r\n\r\n';

export class SilentSocket {
  private chunks: Buffer[] = [];
  private buffered = 0;

  private constructor(private readonly socket: Socket) {}

  /** Upgrades `path` on `baseUrl` with `headers`; resolves paused, right after the 101. */
  static open(
    baseUrl: string,
    path: string,
    headers: Record<string, string>,
  ): Promise<SilentSocket> {
    const url = new URL(path, baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    const silent = new SilentSocket(socket);
    return new Promise((resolve, reject) => {
      let head = Buffer.alloc(0);
      const onData = (chunk: Buffer): void => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf(HEADER_END);
        if (end < 0) return;
        socket.pause();
        socket.off('data', onData);
        const status = head.subarray(0, end).toString('latin1').split('\r\n')[0] ?? '';
        if (!/^HTTP\/1\.1 101 /.test(status)) {
          socket.destroy();
          reject(new Error(`upgrade refused: ${status}`));
          return;
        }
        silent.keep(head.subarray(end + HEADER_END.length));
        resolve(silent);
      };
      socket.on('data', onData);
      socket.once('error', reject);
      socket.once('connect', () => {
        const lines = [
          `GET ${url.pathname}${url.search} HTTP/1.1`,
          `Host: ${url.host}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
          'Sec-WebSocket-Version: 13',
          ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        ];
        socket.write(`${lines.join('\r\n')}${HEADER_END}`);
      });
    });
  }

  /**
   * Starts reading: resolves at the bridge's close frame, when the connection ends, or after
   * `timeoutMs` (then `close` is undefined and the connection still open). Destroys the socket.
   */
  readAll(timeoutMs = 10_000): Promise<SilentSocketOutcome> {
    const outcome: SilentSocketOutcome = { textFrames: 0, close: undefined, ended: false };
    return new Promise((resolve) => {
      const done = (ended: boolean): void => {
        clearTimeout(timer);
        outcome.ended ||= ended;
        this.socket.destroy();
        resolve(outcome);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      const parse = (): void => {
        // Frames are parsed only once enough bytes for the next one are in, so a long frame is
        // joined once rather than on every chunk.
        for (;;) {
          const frame = this.nextFrame();
          if (frame === undefined) return;
          if (frame.opcode === 0x1) outcome.textFrames++;
          if (frame.opcode === 0x8) {
            outcome.close = {
              code: frame.payload.readUInt16BE(0),
              reason: frame.payload.subarray(2).toString('utf8'),
            };
            done(true);
            return;
          }
        }
      };
      this.socket.on('data', (chunk: Buffer) => {
        this.keep(chunk);
        parse();
      });
      this.socket.once('end', () => done(true));
      this.socket.once('close', () => done(true));
      this.socket.on('error', () => undefined);
      parse();
      this.socket.resume();
    });
  }

  destroy(): void {
    this.socket.destroy();
  }

  private keep(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** The next whole frame (server frames are not masked), or undefined until it is all in. */
  private nextFrame(): { opcode: number; payload: Buffer } | undefined {
    if (this.buffered < 2) return undefined;
    const start = this.joined(Math.min(this.buffered, 10));
    const opcode = start[0]! & 0x0f;
    let length = start[1]! & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (start.length < 4) return undefined;
      length = start.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (start.length < 10) return undefined;
      length = Number(start.readBigUInt64BE(2));
      offset = 10;
    }
    if (this.buffered < offset + length) return undefined;
    const all = this.joined(this.buffered);
    const payload = all.subarray(offset, offset + length);
    const rest = all.subarray(offset + length);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return { opcode, payload };
  }

  /** The first chunk, grown by joining until it holds at least `bytes`. */
  private joined(bytes: number): Buffer {
    let first = this.chunks[0] ?? Buffer.alloc(0);
    if (first.length < bytes) {
      first = Buffer.concat(this.chunks);
      this.chunks = [first];
    }
    return first;
  }
}
