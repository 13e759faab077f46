// A small Guacamole client for tests, standing in for the browser: it performs the guacd
// handshake over TCP or a Unix socket, parses everything the gateway sends with the shared
// codec, applies `size`/`img`/`copy`/`cursor` in order to RGBA layers (PNG, JPEG and WebP
// decoded with sharp), replies `sync` after each frame is applied (as guacamole-common-js does
// after drawing), and keeps the connection alive with `nop`. It records errors, clipboard text,
// frame counts and the images it drew to assert on.
import { connect, type Socket } from 'node:net';
import sharp from 'sharp';
import {
  buildConnectValues,
  encodeInstruction,
  GuacParser,
  type GuacInstruction,
} from '@overlay-companion/guac';
import {
  blit,
  copyRect,
  crop,
  fillRects,
  resizedLayer,
  type Layer,
  type PathRect,
} from './rgbaLayers.js';

export type { Layer } from './rgbaLayers.js';

/** A TCP port on 127.0.0.1, a host and port, or a Unix socket (a `Gateway` is either). */
export type GuacServerAddress =
  | number
  | { host: string; port: number; path?: undefined }
  | { path: string; host?: undefined; port?: undefined };

export interface TestClientOptions {
  /** `vnc`, another protocol, or `$<id>` to join. */
  select: string;
  /** Connection arguments by name; mapped to the server's `args` order. */
  params?: Record<string, string>;
  size?: [number, number, number?];
  /** Reply `sync` automatically after each frame (default true). Off simulates a lagging browser. */
  autoSync?: boolean;
  /** Mimetypes for the handshake's `image` instruction (default PNG and JPEG). */
  imageTypes?: string[];
}

interface PendingImage {
  layer: number;
  mask: number;
  mimetype: string;
  x: number;
  y: number;
  chunks: Buffer[];
}

/** An image the client drew: where, how big, and in which format it came. */
export interface DrawnImage {
  mimetype: string;
  layer: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** `frames` when it was drawn: it belongs to the next frame. */
  frame: number;
}

export class GuacTestClient {
  readonly received: GuacInstruction[] = [];
  readonly errors: { message: string; status: number }[] = [];
  readonly clipboard: string[] = [];
  readonly layers = new Map<number, Layer>();
  /** Every image drawn, in order. */
  readonly images: DrawnImage[] = [];
  cursor: { hotX: number; hotY: number; width: number; height: number; rgba: Buffer } | undefined;
  frames = 0;
  /** `sync` timestamps received but not yet acknowledged (when autoSync is off). */
  readonly unacknowledged: string[] = [];
  argNames: string[] = [];
  connectionId = '';
  closed = false;
  autoSync: boolean;

  private readonly parser = new GuacParser();
  private readonly pendingImages = new Map<number, PendingImage>();
  /** Per layer, the rectangles of the path the next `cfill` fills. */
  private readonly paths = new Map<number, PathRect[]>();
  private readonly outClipboard = new Map<number, Buffer[]>();
  private work: Promise<void> = Promise.resolve();
  private waiters: (() => void)[] = [];
  private readonly keepAlive: NodeJS.Timeout;
  private failure: Error | undefined;

  private constructor(readonly socket: Socket) {
    this.autoSync = true;
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const instruction of this.parser.push(chunk)) this.enqueue(instruction);
      } catch (error) {
        this.failure = error instanceof Error ? error : new Error(String(error));
        this.notify();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.notify();
    });
    this.keepAlive = setInterval(() => this.send('nop'), 1000);
    this.keepAlive.unref();
  }

  /** Opens a connection without any handshake (for garbage and timeout tests). */
  static async open(address: GuacServerAddress, host = '127.0.0.1'): Promise<GuacTestClient> {
    const socket =
      typeof address === 'number'
        ? connect({ host, port: address })
        : address.path === undefined
          ? connect({ host: address.host, port: address.port })
          : connect({ path: address.path });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new GuacTestClient(socket);
  }

  /**
   * Connects and runs the handshake; resolves once `ready` (or an `error`) has arrived.
   * Check `errors` / `connectionId` afterwards.
   */
  static async connect(
    address: GuacServerAddress,
    options: TestClientOptions,
  ): Promise<GuacTestClient> {
    const client = await GuacTestClient.open(address);
    client.autoSync = options.autoSync ?? true;
    client.send('select', options.select);
    await client.waitFor(() => client.argNames.length > 0 || client.errors.length > 0, 'args');
    if (client.errors.length > 0) return client;
    const [w, h, dpi] = options.size ?? [1024, 768, 96];
    client.send('size', w, h, dpi ?? 96);
    client.send('audio');
    client.send('video');
    client.send('image', ...(options.imageTypes ?? ['image/png', 'image/jpeg']));
    client.send('timezone', 'UTC');
    client.send('name', 'test');
    client.send('connect', ...buildConnectValues(client.argNames, options.params ?? {}));
    await client.waitFor(() => client.connectionId !== '' || client.errors.length > 0, 'ready');
    return client;
  }

  get screen(): Layer {
    return this.layers.get(0) ?? { width: 0, height: 0, rgba: Buffer.alloc(0) };
  }

  send(opcode: string, ...args: (string | number)[]): void {
    if (!this.closed) this.socket.write(encodeInstruction(opcode, ...args));
  }

  sendRaw(text: string | Buffer): void {
    if (!this.closed) this.socket.write(text);
  }

  /** Sends clipboard text the way guacamole-common-js does: a stream, base64 blobs, end. */
  sendClipboard(text: string, stream = 7): void {
    this.send('clipboard', stream, 'text/plain');
    const data = Buffer.from(text, 'utf8');
    for (let o = 0; o < data.length; o += 4096)
      this.send('blob', stream, data.subarray(o, o + 4096).toString('base64'));
    this.send('end', stream);
  }

  /** Acknowledges every frame received so far (for tests that hold sync back). */
  acknowledge(): void {
    for (const ts of this.unacknowledged.splice(0)) this.send('sync', ts);
  }

  /** Waits until `predicate` holds after some instruction was applied. */
  async waitFor(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (this.failure) throw this.failure;
      if (this.closed && !predicate()) {
        await this.work;
        if (predicate()) return;
        throw new Error(
          `connection closed while waiting for ${what}; errors: ${JSON.stringify(this.errors)}`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out waiting for ${what}; errors: ${JSON.stringify(this.errors)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async waitForFrames(count: number, timeoutMs?: number): Promise<void> {
    await this.waitFor(() => this.frames >= count, `${String(count)} frame(s)`, timeoutMs);
  }

  async waitForError(timeoutMs?: number): Promise<{ message: string; status: number }> {
    await this.waitFor(() => this.errors.length > 0, 'an error instruction', timeoutMs);
    return this.errors[0] as { message: string; status: number };
  }

  async waitForClose(timeoutMs = 5000): Promise<void> {
    await this.waitFor(() => this.closed, 'the connection to close', timeoutMs).catch(() => {
      throw new Error('the gateway did not close the connection');
    });
  }

  /** Stops the periodic `nop` (to play a browser that went silent). */
  stopKeepAlive(): void {
    clearInterval(this.keepAlive);
  }

  close(): void {
    clearInterval(this.keepAlive);
    this.socket.destroy();
  }

  private enqueue(instruction: GuacInstruction): void {
    this.received.push(instruction);
    this.work = this.work
      .then(() => this.apply(instruction))
      .catch((error: unknown) => {
        this.failure = error instanceof Error ? error : new Error(String(error));
      })
      .finally(() => this.notify());
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private async apply({ opcode, args }: GuacInstruction): Promise<void> {
    const n = (i: number): number => Number(args[i]);
    switch (opcode) {
      case 'args':
        this.argNames = args;
        return;
      case 'ready':
        this.connectionId = args[0] ?? '';
        return;
      case 'error':
        this.errors.push({ message: args[0] ?? '', status: n(1) });
        return;
      case 'size':
        this.resizeLayer(n(0), n(1), n(2));
        return;
      case 'img':
        this.pendingImages.set(n(0), {
          mask: n(1),
          layer: n(2),
          mimetype: args[3] ?? '',
          x: n(4),
          y: n(5),
          chunks: [],
        });
        return;
      case 'clipboard':
        this.outClipboard.set(n(0), []);
        return;
      case 'blob': {
        const data = Buffer.from(args[1] ?? '', 'base64');
        this.pendingImages.get(n(0))?.chunks.push(data);
        this.outClipboard.get(n(0))?.push(data);
        return;
      }
      case 'end': {
        const image = this.pendingImages.get(n(0));
        this.pendingImages.delete(n(0));
        if (image !== undefined) await this.drawImage(image);
        const text = this.outClipboard.get(n(0));
        this.outClipboard.delete(n(0));
        if (text !== undefined) this.clipboard.push(Buffer.concat(text).toString('utf8'));
        return;
      }
      case 'copy':
        this.copy(n(0), n(1), n(2), n(3), n(4), n(6), n(7), n(8));
        return;
      case 'rect':
        this.paths.set(n(0), [
          ...(this.paths.get(n(0)) ?? []),
          { x: n(1), y: n(2), width: n(3), height: n(4) },
        ]);
        return;
      case 'cfill':
        // Opaque fills only (what the gateway sends): OVER with alpha 255 replaces the pixels.
        this.fill(n(1), [n(2), n(3), n(4), n(5)]);
        return;
      case 'cursor': {
        const src = this.layers.get(n(2));
        const [sx, sy, w, h] = [n(3), n(4), n(5), n(6)];
        const rgba = src ? crop(src, sx, sy, w, h) : Buffer.alloc(w * h * 4);
        this.cursor = { hotX: n(0), hotY: n(1), width: w, height: h, rgba };
        return;
      }
      case 'sync':
        this.frames++;
        if (this.autoSync) this.send('sync', args[0] ?? '0');
        else this.unacknowledged.push(args[0] ?? '0');
        return;
      default:
        return;
    }
  }

  private resizeLayer(index: number, width: number, height: number): void {
    this.layers.set(index, resizedLayer(this.layers.get(index), width, height));
  }

  private async drawImage(image: PendingImage): Promise<void> {
    const { data, info } = await sharp(Buffer.concat(image.chunks))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const layer = this.layers.get(image.layer);
    if (layer === undefined)
      throw new Error(`img into layer ${String(image.layer)} before its size was set`);
    this.images.push({
      mimetype: image.mimetype,
      layer: image.layer,
      x: image.x,
      y: image.y,
      width: info.width,
      height: info.height,
      frame: this.frames,
    });
    blit(layer, data, info, image.x, image.y);
  }

  private fill(index: number, rgba: readonly number[]): void {
    const layer = this.layers.get(index);
    const path = this.paths.get(index) ?? [];
    this.paths.delete(index);
    if (layer === undefined) throw new Error(`cfill on layer ${String(index)} before its size`);
    fillRects(layer, path, rgba);
  }

  private copy(
    srcIndex: number,
    sx: number,
    sy: number,
    w: number,
    h: number,
    dstIndex: number,
    dx: number,
    dy: number,
  ): void {
    const src = this.layers.get(srcIndex);
    const dst = this.layers.get(dstIndex);
    if (!src || !dst) throw new Error('copy between unknown layers');
    copyRect(src, { x: sx, y: sy, width: w, height: h }, dst, dx, dy);
  }
}
