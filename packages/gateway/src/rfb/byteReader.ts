// Turns the socket's arbitrary chunks into exact-length reads for the protocol parser, and
// applies back-pressure: a server that floods us is paused rather than buffered without limit.
import { RfbError } from './errors.js';

/** Pause the socket above this many unread bytes; resume once below half of it. */
const HIGH_WATER = 8 * 1024 * 1024;

interface Waiter {
  size: number;
  resolve: (data: Buffer) => void;
  reject: (error: RfbError) => void;
}

export class ByteReader {
  private chunks: Buffer[] = [];
  private head = 0; // read offset into chunks[0]
  private buffered = 0;
  private waiter: Waiter | undefined;
  private failure: RfbError | undefined;
  private paused = false;

  constructor(private readonly flow: { pause(): void; resume(): void }) {}

  /** Bytes received and not yet read (used by tests and diagnostics). */
  get available(): number {
    return this.buffered;
  }

  push(chunk: Buffer): void {
    if (this.failure !== undefined || chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (
      !this.paused &&
      this.buffered > HIGH_WATER &&
      (this.waiter === undefined || this.waiter.size < this.buffered)
    ) {
      this.paused = true;
      this.flow.pause();
    }
    const waiter = this.waiter;
    if (waiter !== undefined && this.buffered >= waiter.size) {
      this.waiter = undefined;
      waiter.resolve(this.take(waiter.size));
    }
  }

  /** No more data will come: pending and future reads fail with `error`. */
  fail(error: RfbError): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.chunks = [];
    this.buffered = 0;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(error);
  }

  /** Resolves with exactly `size` bytes. Only one read may be outstanding at a time. */
  read(size: number): Promise<Buffer> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.buffered >= size) return Promise.resolve(this.take(size));
    if (this.waiter !== undefined) throw new Error('ByteReader: overlapping reads');
    // A read larger than the high-water mark must be allowed to arrive.
    if (this.paused) {
      this.paused = false;
      this.flow.resume();
    }
    return new Promise((resolve, reject) => {
      this.waiter = { size, resolve, reject };
    });
  }

  /**
   * Resolves with between 1 and `max` bytes, as a view of what arrived (no copy): a large
   * payload is consumed piece by piece as it comes, instead of being gathered into one buffer.
   */
  readSome(max: number): Promise<Buffer> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const first = this.chunks[0];
    if (first !== undefined) {
      return Promise.resolve(this.take(Math.min(max, first.length - this.head)));
    }
    // Nothing buffered: the first byte to arrive (the rest of its chunk goes to the next call).
    return this.read(1);
  }

  async u8(): Promise<number> {
    return (await this.read(1))[0]!;
  }
  async u16(): Promise<number> {
    return (await this.read(2)).readUInt16BE(0);
  }
  async u32(): Promise<number> {
    return (await this.read(4)).readUInt32BE(0);
  }
  async s32(): Promise<number> {
    return (await this.read(4)).readInt32BE(0);
  }

  private take(size: number): Buffer {
    let out: Buffer;
    const first = this.chunks[0];
    if (first !== undefined && first.length - this.head >= size) {
      // Fast path: a view into one chunk, no copy.
      out = first.subarray(this.head, this.head + size);
      this.head += size;
      if (this.head === first.length) {
        this.chunks.shift();
        this.head = 0;
      }
    } else {
      out = Buffer.allocUnsafe(size);
      let filled = 0;
      while (filled < size) {
        const chunk = this.chunks[0]!;
        const n = Math.min(size - filled, chunk.length - this.head);
        chunk.copy(out, filled, this.head, this.head + n);
        filled += n;
        this.head += n;
        if (this.head === chunk.length) {
          this.chunks.shift();
          this.head = 0;
        }
      }
    }
    this.buffered -= size;
    if (this.paused && this.buffered < HIGH_WATER / 2) {
      this.paused = false;
      this.flow.resume();
    }
    return out;
  }
}
