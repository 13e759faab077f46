// Which of the server's instructions pass into the recording file as they are (while no mask is
// in force and no gap is open): its drawing instructions, and `blob`/`end` only for image streams
// the file itself saw begin — an image stream open when a mask appeared (or a gap began) was
// ended in the file then, and the rest of it never reaches the file. Knows the image streams
// open in the model and in the file, and nothing else.
import { encodeInstruction } from '@overlay-companion/guac';
import { DRAWING } from './drawing.js';

export class ServerStreams {
  /** Server image streams open (`img` seen, no `end` yet). */
  private readonly open = new Set<number>();
  /** Those of them the file saw begin. */
  private readonly inFile = new Set<number>();

  /**
   * Whether the server's `opcode` with `args` (each of its instructions in order, whatever the
   * writer does with it) is drawing the file may take as it is.
   */
  passes(opcode: string, args: readonly string[]): boolean {
    if (opcode === 'img') {
      this.open.add(Number(args[0]));
      return true;
    }
    if (opcode !== 'blob' && opcode !== 'end') return DRAWING.has(opcode);
    const stream = Number(args[0]);
    const passes = this.open.has(stream) && this.inFile.has(stream);
    if (opcode === 'end') {
      this.open.delete(stream);
      this.inFile.delete(stream);
    }
    return passes;
  }

  /** The file took `opcode` (one that passes()): an `img` begins a stream there. */
  written(opcode: string, args: readonly string[]): void {
    if (opcode === 'img') this.inFile.add(Number(args[0]));
  }

  /** Ends, in the file, every image stream open there: none of them reaches it any more. */
  endAllInFile(): string {
    let out = '';
    for (const stream of this.inFile) out += encodeInstruction('end', stream);
    this.inFile.clear();
    return out;
  }
}
