// A recording's files in the data dir's recordings folder (0700, each named by the recording's
// random id only): read in place, streamed from disk, deleted with rm.
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { RecordingReader, recordingPaths } from '@overlay-companion/recording';
import type { ReadNeed, RecordingFiles } from './recordingFiles.js';

export class LocalFiles implements RecordingFiles {
  readonly location = 'local' as const;

  constructor(readonly dir: string) {}

  async stream(
    id: string,
  ): Promise<{ body: ReadableStream<Uint8Array>; size: number } | undefined> {
    const path = recordingPaths(this.dir, id).recording;
    const size = await stat(path).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) return undefined;
    const file = createReadStream(path, { start: 0, end: Math.max(0, size - 1) });
    return { body: Readable.toWeb(file) as ReadableStream<Uint8Array>, size };
  }

  async read<T>(
    id: string,
    _need: ReadNeed,
    use: (reader: RecordingReader) => Promise<T>,
  ): Promise<T | undefined> {
    const reader = await RecordingReader.open(this.dir, id).catch(() => undefined);
    return reader === undefined ? undefined : use(reader);
  }

  async remove(id: string): Promise<void> {
    await Promise.all(
      Object.values(recordingPaths(this.dir, id)).map((p) => rm(p, { force: true })),
    );
  }

  /** Whether the recording's picture file is here (every recording written here has one). */
  async has(id: string): Promise<boolean> {
    return stat(recordingPaths(this.dir, id).recording).then(
      () => true,
      () => false,
    );
  }

  /** Bytes of every file of the recording (0 for those missing). */
  async bytes(id: string): Promise<number> {
    const sizes = await Promise.all(
      Object.values(recordingPaths(this.dir, id)).map((p) =>
        stat(p).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    return sizes.reduce((a, b) => a + b, 0);
  }
}
