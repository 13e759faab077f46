// An append-only JSON-lines file that can still take a few lines when the disk is full: the
// recording's index and its event track, which must say where a recording has a gap precisely
// when the disk failed. It reserves room ahead of what it has written (a run of spaces, which
// readers skip as blank lines) and writes each batch of lines over the reservation in place, so
// those writes need no new blocks; the reservation is renewed once it runs low, while there is
// still room. Appends never wait for the disk: lines are batched and written one batch at a time,
// and past `maxPendingBytes` new lines are dropped and counted.
import { open, type FileHandle } from 'node:fs/promises';

/** Room kept ahead of the last line written. */
const RESERVE_BYTES = 64 * 1024;
const SPACE = 0x20;

export interface JsonLinesOptions {
  maxPendingBytes?: number;
}

export class JsonLinesFile {
  /** Lines dropped because the batch waiting for the disk was full, or writing failed. */
  dropped = 0;
  /** The last write error, if writing ever failed. */
  error: Error | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private position = 0;
  private reservedEnd = 0;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private readonly maxPendingBytes: number;

  /** Bytes the file takes now, the room reserved ahead included. */
  get size(): number {
    return Math.max(this.position, this.reservedEnd);
  }

  private constructor(
    private readonly handle: FileHandle,
    options: JsonLinesOptions,
  ) {
    this.maxPendingBytes = options.maxPendingBytes ?? 1024 * 1024;
  }

  /** Creates `path` (mode 0600; fails if it exists) and reserves its first room. */
  static async create(path: string, options: JsonLinesOptions = {}): Promise<JsonLinesFile> {
    const handle = await open(path, 'wx', 0o600);
    const file = new JsonLinesFile(handle, options);
    try {
      await file.reserve();
    } catch (error) {
      await handle.close();
      throw error;
    }
    return file;
  }

  /** Queues one line; never waits. Returns false when the line was dropped. */
  append(value: unknown): boolean {
    if (this.closed) return false;
    const line = Buffer.from(JSON.stringify(value) + '\n', 'utf8');
    if (this.pendingBytes + line.length > this.maxPendingBytes) {
      this.dropped++;
      return false;
    }
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.flushing === undefined) {
      const flushing = Promise.resolve().then(() => this.flush());
      this.flushing = flushing;
      void flushing.then(() => {
        if (this.flushing === flushing) this.flushing = undefined;
      });
    }
    return true;
  }

  /** Resolves once every line queued so far was written (or dropped). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.settled();
    this.closed = true;
    // Give back the room reserved and not used. Best effort: a failing disk keeps the padding,
    // which readers skip.
    await this.handle.truncate(this.position).then(
      () => (this.reservedEnd = this.position),
      () => undefined,
    );
    await this.handle.close();
  }

  private async flush(): Promise<void> {
    {
      while (this.pending.length > 0) {
        const batch = Buffer.concat(this.pending);
        const count = this.pending.length;
        this.pending = [];
        this.pendingBytes = 0;
        try {
          if (this.position + batch.length > this.reservedEnd) await this.reserve(batch.length);
          await this.handle.write(batch, 0, batch.length, this.position);
          this.position += batch.length;
          // Renew the room while there is still some left to fall back on.
          if (this.reservedEnd - this.position < RESERVE_BYTES / 2)
            await this.reserve().catch(() => undefined);
        } catch (error) {
          this.error = error instanceof Error ? error : new Error(String(error));
          this.dropped += count;
        }
      }
    }
  }

  private async reserve(atLeast = 0): Promise<void> {
    const size = Math.max(RESERVE_BYTES, atLeast + RESERVE_BYTES / 2);
    const start = Math.max(this.reservedEnd, this.position);
    const padding = Buffer.alloc(size, SPACE);
    await this.handle.write(padding, 0, size, start);
    await this.handle.sync().catch(() => undefined);
    this.reservedEnd = start + size;
  }
}

/** Parses a JSON-lines file's text: one value per non-blank line; bad lines are skipped. */
export function parseJsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    try {
      out.push(JSON.parse(trimmed) as unknown);
    } catch {
      // A line cut by a crash; the rest of the file still counts.
    }
  }
  return out;
}
