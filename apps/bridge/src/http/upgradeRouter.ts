// Routes HTTP upgrade requests (WebSockets) by path. The tunnel registers `/tunnel`; the
// desktop control registers `/ws/viewer` and `/ws/overlays` the same way. Unknown paths get a plain HTTP error
// instead of a hanging socket.
import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Answers an upgrade request with an HTTP error and closes the socket. */
export function rejectUpgrade(socket: Duplex, status: number, message: string): void {
  if (!socket.writable) return void socket.destroy();
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body,
  );
}

/** Refuses an upgrade before routing (Host/Origin checks); undefined lets it through. */
export type UpgradeGuard = (
  request: IncomingMessage,
  path: string,
) => { status: number; message: string } | undefined;

export class UpgradeRouter {
  private readonly routes = new Map<string, UpgradeHandler>();

  constructor(private readonly guard?: UpgradeGuard) {}

  add(path: string, handler: UpgradeHandler): this {
    if (this.routes.has(path))
      throw new Error(`An upgrade handler for ${path} is already registered.`);
    this.routes.set(path, handler);
    return this;
  }

  paths(): string[] {
    return [...this.routes.keys()];
  }

  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.handle(request, socket, head),
    );
  }

  handle(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // A reset from the client during the upgrade must not become an unhandled 'error'.
    socket.on('error', () => socket.destroy());
    let path: string;
    try {
      path = new URL(request.url ?? '/', 'http://bridge.invalid').pathname;
    } catch {
      return rejectUpgrade(socket, 400, 'The upgrade request has a malformed URL.');
    }
    const refusal = this.guard?.(request, path);
    if (refusal) return rejectUpgrade(socket, refusal.status, refusal.message);
    const handler = this.routes.get(path);
    if (!handler) {
      return rejectUpgrade(
        socket,
        404,
        `No WebSocket endpoint at ${path}. This bridge serves: ${this.paths().join(', ')}.`,
      );
    }
    try {
      handler(request, socket, head);
    } catch {
      rejectUpgrade(socket, 500, 'The bridge failed to accept this WebSocket; see its log.');
    }
  }
}

/** The `ticket` query parameter of an upgrade request, if any. */
export function ticketFrom(request: IncomingMessage): string | undefined {
  try {
    const value = new URL(request.url ?? '/', 'http://bridge.invalid').searchParams.get('ticket');
    return value === null || value === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

/** The text of a WebSocket frame as `ws` hands it over (one buffer, fragments, or an ArrayBuffer). */
export function rawText(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** The bytes of a WebSocket frame, whichever shape `ws` delivered them in (no copy for one Buffer). */
export function rawBytes(data: Buffer | ArrayBuffer | Buffer[]): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}
