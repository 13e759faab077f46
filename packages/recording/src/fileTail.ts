// What the recording file holds from a byte offset on, as instructions, for the writer's model to
// catch up with (writer.ts: while no mask is in force the model is not kept current on the live
// path; it follows the file later). The bytes come from the disk up to where the writer's own
// copies of chunks not yet confirmed begin, then from those copies — so bytes the disk accepted
// and then lost (ENOSPC, EIO) still reach the model, which must know the picture the live
// desktop showed when the gap began.
import { open } from 'node:fs/promises';
import { GuacParser, type GuacInstruction } from '@overlay-companion/guac';

/**
 * A chunk of drawing the model has not applied and the disk does not hold (yet, or ever: a chunk
 * refused or lost in a gap), in order; `start` is where the file's bytes before it end.
 */
export interface UnconfirmedChunk {
  start: number;
  chunk: Buffer;
}

const READ_CHUNK = 1024 * 1024;

/**
 * The instructions of `path` from byte `from` to the start of the first of `unconfirmed` (or
 * `end`), then those of every chunk of `unconfirmed`, in order, a batch at a time.
 */
export async function* instructionsFrom(
  path: string,
  from: number,
  end: number,
  unconfirmed: readonly UnconfirmedChunk[],
): AsyncGenerator<GuacInstruction[]> {
  const parser = new GuacParser();
  const diskEnd = Math.min(end, unconfirmed[0]?.start ?? end);
  if (diskEnd > from) {
    const handle = await open(path, 'r');
    try {
      for (let at = from; at < diskEnd;) {
        const length = Math.min(READ_CHUNK, diskEnd - at);
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, at);
        if (bytesRead === 0) throw new Error(`the recording file ends at ${at}, before ${diskEnd}`);
        at += bytesRead;
        yield parser.push(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  }
  for (const { chunk } of unconfirmed) yield parser.push(chunk);
}
