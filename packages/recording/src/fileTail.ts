// What the recording file holds, as instructions, for a model to be built from: from a byte offset
// on, or the byte ranges a keyframe names (drawReferences.ts). For the writer's model (while no
// mask is in force it is not kept current; it is built from the file when it is needed) the bytes
// come from the disk up to where the writer's own copies of chunks not yet confirmed begin, then
// from those copies — so bytes the disk accepted and then lost (ENOSPC, EIO) still reach the
// model, which must know the picture the live desktop showed when the gap began.
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

/** A byte range of the recording file, [start, end). */
export type ByteRange = readonly [number, number];

/**
 * The instructions in `ranges` of `path`, in order (each range holds whole instructions): from the
 * disk below the first of `unconfirmed`, from those chunks above it (the last chunk holding an
 * offset wins: a chunk dropped in a gap was kept at the offset the next one took).
 */
export async function instructionsIn(
  path: string,
  ranges: readonly ByteRange[],
  unconfirmedNow: readonly UnconfirmedChunk[] = [],
): Promise<GuacInstruction[]> {
  // As they are now: the disk confirming a chunk while this reads takes it off the caller's list.
  const unconfirmed = [...unconfirmedNow];
  const diskEnd = unconfirmed[0]?.start ?? Number.POSITIVE_INFINITY;
  const total = ranges.reduce((sum, [start, end]) => sum + end - start, 0);
  const bytes = Buffer.alloc(total);
  let at = 0;
  const handle = ranges.some(([start]) => start < diskEnd) ? await open(path, 'r') : undefined;
  try {
    for (const [start, end] of ranges) {
      for (let offset = start; offset < end;) {
        if (offset < diskEnd && handle !== undefined) {
          const length = Math.min(end, diskEnd) - offset;
          const { bytesRead } = await handle.read(bytes, at, length, offset);
          if (bytesRead === 0)
            throw new Error(`the recording file ends at ${offset}, before ${end}`);
          offset += bytesRead;
          at += bytesRead;
          continue;
        }
        const chunk = unconfirmed.findLast(
          (c) => c.start <= offset && offset < c.start + c.chunk.length,
        );
        if (chunk === undefined) throw new Error(`no copy of the recording's byte ${offset}`);
        const length = Math.min(end, chunk.start + chunk.chunk.length) - offset;
        chunk.chunk.copy(bytes, at, offset - chunk.start, offset - chunk.start + length);
        offset += length;
        at += length;
      }
    }
  } finally {
    await handle?.close();
  }
  return new GuacParser().push(bytes);
}
