// The recording file's write side for the writer: the protocol text of the frame being built,
// batched into one file write per frame (or every FLUSH_BYTES), and where each instruction lands
// in the file — the byte ranges a reference keyframe names (drawReferences.ts), which also keeps a
// copy of each chunk until the disk confirms it. Writes never wait: a chunk the file refuses is
// dropped (the writer opens a gap) and, while references are kept, held for them.
import { encodeInstruction, type GuacInstruction } from '@overlay-companion/guac';
import type { BoundedFile } from './boundedFile.js';
import type { DrawReferences } from './drawReferences.js';

// Flush the frame being built once it holds this much, even before its `sync`.
const FLUSH_BYTES = 256 * 1024;

export class RecordingOutput {
  /** Kept while the file holds exactly the server's drawing (no mask, no gap). */
  references: DrawReferences | undefined;
  private out = '';
  /** Bytes of `out`, and the file offset it starts at. */
  private outBytes = 0;
  private outStart = 0;

  constructor(private readonly file: BoundedFile) {}

  /** Protocol text the writer composed (a sync, its own pictures). */
  text(text: string): void {
    this.out += text;
    this.outBytes += Buffer.byteLength(text);
  }

  /** One of the server's instructions, passed through; flushed at once if the frame is large. */
  instruction(instruction: GuacInstruction): boolean {
    const text = encodeInstruction(instruction.opcode, ...instruction.args);
    const start = this.outStart + this.outBytes;
    this.text(text);
    this.references?.written(instruction, start, this.outStart + this.outBytes);
    return this.out.length >= FLUSH_BYTES;
  }

  /** Drops what was built and not written (a gap began); references keep it for the model. */
  drop(): void {
    this.references?.keep(this.outStart, this.out);
    this.reset();
  }

  /**
   * Writes what was built to the file: the offset after it, or undefined when the file refused
   * it (`refused` then says why, for the writer's gap). `written`: once it is on disk.
   */
  flush(written?: () => void): { offset: number } | { refused: true } {
    if (this.out.length === 0) {
      this.reset();
      return { offset: this.file.accepted };
    }
    const chunk = Buffer.from(this.out, 'utf8');
    const references = this.references;
    const kept = references === undefined ? undefined : { start: this.outStart, chunk };
    this.out = '';
    const confirmed = (): void => {
      if (kept !== undefined) references?.confirmed(kept);
      written?.();
    };
    const took = this.file.write(chunk, confirmed);
    // Dropped from the file, but the live picture has it: the references must too.
    if (kept !== undefined) references?.track(kept);
    this.reset();
    return took ? { offset: this.file.accepted } : { refused: true };
  }

  private reset(): void {
    this.out = '';
    this.outBytes = 0;
    this.outStart = this.file.accepted;
  }
}
