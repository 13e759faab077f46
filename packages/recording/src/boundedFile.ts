// The recording file's writer: a plain fs write stream behind a bounded budget, so writing never
// waits and never holds more than `maxPendingBytes` in memory. A chunk is refused (the caller
// records a gap) when the budget is spent or the disk failed. It knows which bytes are surely on
// disk (each write's callback), so after a failure (ENOSPC, EACCES, EIO) it can cut the file back
// to the last whole chunk and carry on there: a reader never meets half an instruction.
import { createWriteStream, type WriteStream } from 'node:fs';
import { truncate } from 'node:fs/promises';

export interface BoundedFileOptions {
  /** Bytes accepted but not yet on disk, at most (default 8 MiB). */
  maxPendingBytes?: number;
}

export class BoundedFile {
  /** Bytes confirmed written, from the start of the file. */
  confirmed = 0;
  /** Bytes accepted so far: where the next accepted chunk starts. */
  accepted = 0;
  /** Why the disk failed; undefined while writing works. */
  failure: Error | undefined;
  /** Called once per failure, with the error. */
  onFailure: ((error: Error) => void) | undefined;
  readonly maxPendingBytes: number;
  private stream: WriteStream;
  private waiters: { offset: number; callback: () => void }[] = [];
  private closing: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    stream: WriteStream,
    options: BoundedFileOptions,
  ) {
    this.maxPendingBytes = options.maxPendingBytes ?? 8 * 1024 * 1024;
    this.stream = stream;
    this.watch(stream);
  }

  /** Creates `path` with mode 0600 (it must not exist). */
  static async create(path: string, options: BoundedFileOptions = {}): Promise<BoundedFile> {
    const stream = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    await opened(stream);
    return new BoundedFile(path, stream, options);
  }

  get pendingBytes(): number {
    return this.accepted - this.confirmed;
  }

  /** Whether `bytes` more would be accepted now (a chunk over the budget, when nothing waits). */
  canTake(bytes: number): boolean {
    if (this.failure !== undefined) return false;
    return this.pendingBytes === 0 || this.pendingBytes + bytes <= this.maxPendingBytes;
  }

  /**
   * Queues `chunk` unless the budget is spent or the disk failed (then returns false and writes
   * nothing). `written` is called once the chunk is on disk.
   */
  write(chunk: Buffer, written?: () => void): boolean {
    if (!this.canTake(chunk.length) || this.closing) return false;
    this.accepted += chunk.length;
    const stream = this.stream;
    stream.write(chunk, (error) => {
      if (error || stream !== this.stream) return;
      this.confirmed += chunk.length;
      written?.();
      if (this.waiters.length > 0) this.wake();
    });
    return true;
  }

  /** Calls `callback` once the file's first `offset` bytes are on disk (never, if they are lost). */
  whenConfirmed(offset: number, callback: () => void): void {
    if (this.confirmed >= offset) callback();
    else this.waiters.push({ offset, callback });
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => w.offset <= this.confirmed);
    this.waiters = this.waiters.filter((w) => w.offset > this.confirmed);
    for (const w of ready) w.callback();
  }

  /**
   * After a failure: cuts the file back to the confirmed bytes and reopens it there. Rejects
   * (and stays failed) when the disk still refuses.
   */
  async resume(): Promise<void> {
    if (this.failure === undefined || this.closing) return;
    await truncate(this.path, this.confirmed);
    const stream = createWriteStream(this.path, { flags: 'r+', start: this.confirmed });
    await opened(stream);
    this.stream = stream;
    this.watch(stream);
    this.accepted = this.confirmed;
    this.failure = undefined;
  }

  /** Ends the stream, waiting for what it holds. */
  async close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const stream = this.stream;
      if (stream.destroyed) return resolve();
      stream.once('close', () => resolve());
      stream.end();
    }).then(async () => {
      // A failed stream may have left part of a chunk behind.
      if (this.failure !== undefined)
        await truncate(this.path, this.confirmed).catch(() => undefined);
    });
    await this.closing;
  }

  private watch(stream: WriteStream): void {
    stream.on('error', (error) => {
      if (stream !== this.stream || this.failure !== undefined) return;
      this.failure = error;
      this.accepted = this.confirmed;
      // Bytes past `confirmed` are lost: nothing may point at them.
      this.waiters = [];
      this.onFailure?.(error);
    });
  }
}

function opened(stream: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
}
