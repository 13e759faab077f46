// A recording whose row still says `local` while an S3 store is configured may be moved at any
// moment (spoolMover.ts: its objects are complete before the local copy goes). A read that
// finds the local copy gone therefore reads the bucket instead, so a request that looked the
// row up just before the move finished still gets the recording, not a 404. Deleting one
// deletes both copies: a move that failed part-way (or was cut short before its row was marked
// `s3`) may have left objects in the bucket, and nothing else would ever list them.
import type { RecordingReader } from '@overlay-companion/recording';
import type { LocalFiles } from './localFiles.js';
import type { ReadNeed, RecordingFiles } from './recordingFiles.js';
import type { S3Files } from './s3Files.js';

export class MovingFiles implements RecordingFiles {
  readonly location = 'local' as const;

  constructor(
    private readonly local: LocalFiles,
    private readonly s3: S3Files,
  ) {}

  async stream(
    id: string,
  ): Promise<{ body: ReadableStream<Uint8Array>; size: number } | undefined> {
    return (await this.local.stream(id)) ?? this.s3.stream(id);
  }

  async read<T>(
    id: string,
    need: ReadNeed,
    use: (reader: RecordingReader) => Promise<T>,
  ): Promise<T | undefined> {
    const local = await this.local.read(id, need, async (reader) => ({ value: await use(reader) }));
    return local === undefined ? this.s3.read(id, need, use) : local.value;
  }

  async remove(id: string): Promise<void> {
    await this.s3.remove(id);
    await this.local.remove(id);
  }
}
