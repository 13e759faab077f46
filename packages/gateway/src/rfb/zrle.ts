// ZRLE decoding (RFB encoding 16) straight into the RGBA framebuffer. One zlib stream lives for
// the whole connection: the server deflates every ZRLE rectangle into the same stream, so the
// inflate state must persist across rectangles and messages. The server is untrusted: every
// read is bounds-checked against the inflated data and every write stays inside the rectangle,
// which the caller has already checked lies inside the framebuffer.
import { constants, createInflate, type Inflate } from 'node:zlib';
import { protocolError } from './errors.js';

const TILE = 64;

export interface ZrleTarget {
  /** The framebuffer as 32-bit pixels (little-endian RGBA). */
  pixels: Uint32Array;
  /** Framebuffer width in pixels (the row stride). */
  stride: number;
}

export class ZrleDecoder {
  // Node's synchronous zlib calls are one-shot (they close the stream afterwards), so the
  // connection-long stream is an ordinary zlib stream: write one rectangle's bytes, flush with
  // Z_SYNC_FLUSH, and collect what came out. Inflating runs on libuv's thread pool.
  private readonly inflater: Inflate;
  private output: Buffer[] = [];
  private outputBytes = 0;
  private failure: Error | undefined;
  private pending: ((error: Error) => void) | undefined;
  // Palettes are at most 127 colours; one reused array avoids per-tile allocation.
  private readonly palette = new Uint32Array(128);

  /** @param maxInflated the most bytes one rectangle may inflate to (bounds a zip bomb). */
  constructor(private readonly maxInflated: number) {
    // Large output chunks: a full-screen rectangle inflates to megabytes, and each chunk is a
    // round trip to the thread pool.
    this.inflater = createInflate({ chunkSize: 1024 * 1024 });
    this.inflater.on('data', (chunk: Buffer) => {
      this.outputBytes += chunk.length;
      if (this.outputBytes > this.maxInflated)
        this.stop(new Error(`it inflates to more than ${this.maxInflated} bytes`));
      else this.output.push(chunk);
    });
    this.inflater.on('error', (error) => this.stop(error));
    this.inflater.on('close', () => this.stop(new Error('the decoder was closed')));
  }

  /** Inflates one rectangle's compressed bytes and draws its tiles. Rejects with RfbError on bad data. */
  async decode(
    compressed: Buffer,
    x: number,
    y: number,
    width: number,
    height: number,
    target: ZrleTarget,
  ): Promise<void> {
    const data = await this.inflate(compressed);
    this.drawTiles(data, x, y, width, height, target);
  }

  close(): void {
    this.inflater.destroy();
  }

  /** The stream is unusable from now on: fail the pending and every later rectangle. */
  private stop(error: Error): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.output = [];
    this.inflater.destroy();
    const reject = this.pending;
    this.pending = undefined;
    reject?.(error);
  }

  private inflate(compressed: Buffer): Promise<Buffer> {
    const failed = (error: Error) => protocolError(`ZRLE data does not inflate (${error.message})`);
    if (this.failure !== undefined) return Promise.reject(failed(this.failure));
    this.output = [];
    this.outputBytes = 0;
    return new Promise((resolve, reject) => {
      this.pending = (error) => reject(failed(error));
      this.inflater.write(compressed);
      // The flush callback runs after every 'data' event for the bytes written before it.
      this.inflater.flush(constants.Z_SYNC_FLUSH, () => {
        if (this.pending === undefined) return; // already rejected
        this.pending = undefined;
        if (this.failure !== undefined) return reject(failed(this.failure));
        const out = this.output.length === 1 ? this.output[0]! : Buffer.concat(this.output);
        this.output = [];
        resolve(out);
      });
    });
  }

  private drawTiles(
    d: Buffer,
    x: number,
    y: number,
    width: number,
    height: number,
    target: ZrleTarget,
  ): void {
    const fb = target.pixels;
    const stride = target.stride;
    const palette = this.palette;
    const n = d.length;
    let p = 0;
    const short = () => protocolError('ZRLE rectangle ended before all its tiles were decoded');

    for (let ty = 0; ty < height; ty += TILE) {
      const th = Math.min(TILE, height - ty);
      for (let tx = 0; tx < width; tx += TILE) {
        const tw = Math.min(TILE, width - tx);
        const base = (y + ty) * stride + x + tx;
        if (p >= n) throw short();
        const sub = d[p++]!;

        if (sub === 0) {
          // Raw CPIXELs, 3 bytes each: R, G, B.
          if (p + tw * th * 3 > n) throw short();
          for (let row = 0; row < th; row++) {
            let o = base + row * stride;
            const end = o + tw;
            while (o < end) {
              fb[o++] = d[p]! | (d[p + 1]! << 8) | (d[p + 2]! << 16) | 0xff000000;
              p += 3;
            }
          }
        } else if (sub === 1) {
          if (p + 3 > n) throw short();
          const colour = d[p]! | (d[p + 1]! << 8) | (d[p + 2]! << 16) | 0xff000000;
          p += 3;
          for (let row = 0; row < th; row++) {
            const o = base + row * stride;
            fb.fill(colour, o, o + tw);
          }
        } else if (sub <= 16) {
          p = this.readPalette(d, p, sub);
          const bits = sub === 2 ? 1 : sub <= 4 ? 2 : 4;
          const rowBytes = (tw * bits + 7) >> 3;
          if (p + rowBytes * th > n) throw short();
          const mask = (1 << bits) - 1;
          for (let row = 0; row < th; row++) {
            let o = base + row * stride;
            let shift = 8;
            let byte = 0;
            let q = p + row * rowBytes;
            for (let col = 0; col < tw; col++) {
              if (shift === 0 || shift === 8) {
                byte = d[q++]!;
                shift = 8;
              }
              shift -= bits;
              const index = (byte >> shift) & mask;
              if (index >= sub)
                throw protocolError(`ZRLE palette index ${index} outside a ${sub}-colour palette`);
              fb[o++] = palette[index]!;
            }
          }
          p += rowBytes * th;
        } else if (sub === 128) {
          // Plain RLE: (CPIXEL, run length) pairs; runs may wrap from one row to the next.
          const total = tw * th;
          let done = 0;
          while (done < total) {
            if (p + 4 > n) throw short();
            const colour = d[p]! | (d[p + 1]! << 8) | (d[p + 2]! << 16) | 0xff000000;
            p += 3;
            let run = 1;
            let b: number;
            do {
              if (p >= n) throw short();
              b = d[p++]!;
              run += b;
            } while (b === 255);
            if (run > total - done) throw protocolError('ZRLE run longer than its tile');
            fillRun(fb, base, stride, tw, done, run, colour);
            done += run;
          }
        } else if (sub >= 130) {
          const size = sub - 128;
          p = this.readPalette(d, p, size);
          const total = tw * th;
          let done = 0;
          while (done < total) {
            if (p >= n) throw short();
            let index = d[p++]!;
            let run = 1;
            if (index & 128) {
              index &= 127;
              let b: number;
              do {
                if (p >= n) throw short();
                b = d[p++]!;
                run += b;
              } while (b === 255);
            }
            if (index >= size)
              throw protocolError(`ZRLE palette index ${index} outside a ${size}-colour palette`);
            if (run > total - done) throw protocolError('ZRLE run longer than its tile');
            fillRun(fb, base, stride, tw, done, run, palette[index]!);
            done += run;
          }
        } else {
          throw protocolError(`ZRLE tile sub-encoding ${sub} is not defined`);
        }
      }
    }
    // Leftover bytes mean we and the server disagree about the stream: later rectangles would
    // decode as garbage, so stop now.
    if (p !== n) throw protocolError(`ZRLE rectangle has ${n - p} bytes after its last tile`);
  }

  private readPalette(d: Buffer, p: number, size: number): number {
    if (p + size * 3 > d.length) throw protocolError('ZRLE palette cut short');
    for (let i = 0; i < size; i++, p += 3) {
      this.palette[i] = d[p]! | (d[p + 1]! << 8) | (d[p + 2]! << 16) | 0xff000000;
    }
    return p;
  }
}

/** Fills `run` pixels of a tile starting at linear tile index `start`, wrapping rows. */
function fillRun(
  fb: Uint32Array,
  base: number,
  stride: number,
  tw: number,
  start: number,
  run: number,
  colour: number,
): void {
  let row = (start / tw) | 0;
  let col = start - row * tw;
  while (run > 0) {
    const count = Math.min(run, tw - col);
    const o = base + row * stride + col;
    if (count === 1) fb[o] = colour;
    else fb.fill(colour, o, o + count);
    run -= count;
    col = 0;
    row++;
  }
}
