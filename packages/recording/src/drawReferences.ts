// The writer's picture while no mask is in force and no gap is open: not pixels, but which of the
// draws in the recording file make it. Decoding the server's images into a model and encoding
// keyframes from it was nearly all a recording cost; while the file holds exactly the server's
// drawing, a keyframe can instead name the byte ranges of the file's draws still visible at its
// moment (a reference keyframe, indexFormat.ts), which a reader replays to rebuild the picture,
// and nothing needs decoding at all on the writer's side.
//
// How. Every instruction written to the file while following is noted with its byte range, as a
// unit of what a model applies together (an image's `img`, `blob`s and `end`; a fill's `rect`s and
// `cfill`; a copy, transfer, resize or disposal), with no pixels: an image keeps only its header's
// characters. At a keyframe, the units kept at the keyframe before and those since are weighed
// (visibleDraws.ts referencedDraws: which of them a model starting from the base must apply to end
// with every surface exactly as the file makes it); only those are kept, and their ranges are the
// keyframe. The base is the picture the references start from: nothing at the recording's start,
// else the (pixel) keyframe the writer wrote when following began, after a mask or a gap.
//
// When the picture is needed as pixels (a mask appears, a gap opens) the model is rebuilt from the
// base and the ranges of the units kept now; if an image drawn then decodes to another size than
// its header said (a hostile or broken one, which makes the analysis wrong), from the base and
// every byte of the file since, in full. The file's bytes come from the disk, and for what the
// disk has not confirmed from the writer's copies of those chunks (kept here; fileTail.ts).
import type { GuacInstruction } from '@overlay-companion/guac';
import type { DisplayModel } from './displayModel.js';
import {
  instructionsFrom,
  instructionsIn,
  type ByteRange,
  type UnconfirmedChunk,
} from './fileTail.js';
import { HEADER_BASE64_CHARS } from './imageHeader.js';
import type { SurfaceEntry } from './indexFormat.js';
import type { Surface } from './layers.js';
import { referencedDraws } from './visibleDraws.js';

/** What the references start from. */
export interface ReferenceBase {
  /** Its surfaces as the file shows them (empty at the recording's start). */
  surfaces: ReadonlyMap<number, Surface>;
  /** Their PNGs in the keys file (the pixel keyframe at `offset`; none at the start). */
  entries: SurfaceEntry[];
  /** The recording file's offset the base shows. */
  offset: number;
}

/** What a model applies together, with where it is in the file. */
interface Unit {
  /** For the analysis: the instructions, an image's blobs cut to its header's characters. */
  light: GuacInstruction[];
  ranges: [number, number][];
}

interface OpenImage extends Unit {
  head: string;
}

export class DrawReferences {
  /** The units kept at the last keyframe, then every one since, in file order. */
  private units: Unit[] = [];
  private readonly images = new Map<number, OpenImage>();
  private readonly paths = new Map<number, Unit>();
  /** Chunks of the file written since the base and not yet confirmed by the disk. */
  private unconfirmed: UnconfirmedChunk[] = [];

  constructor(
    readonly base: ReferenceBase,
    private readonly path: string,
  ) {}

  /** `instruction` was written to the file at bytes [start, end). */
  written(instruction: GuacInstruction, start: number, end: number): void {
    const { opcode, args } = instruction;
    const range: [number, number] = [start, end];
    const n = Number(args[0]);
    switch (opcode) {
      case 'img':
        // A stream opened again drops what it had (as the model does).
        this.images.set(n, { light: [instruction], ranges: [range], head: '' });
        return;
      case 'blob': {
        const image = this.images.get(n);
        if (image === undefined) return;
        addRange(image.ranges, range);
        if (image.head.length < HEADER_BASE64_CHARS)
          image.head += (args[1] ?? '').slice(0, HEADER_BASE64_CHARS - image.head.length);
        return;
      }
      case 'end': {
        const image = this.images.get(n);
        if (image === undefined) return;
        this.images.delete(n);
        addRange(image.ranges, range);
        // A copy of the header's characters, not a slice holding the whole blob.
        const head = Buffer.from(image.head, 'latin1').toString('latin1');
        const blob = { opcode: 'blob', args: [args[0] ?? '', head] };
        this.units.push({ light: [image.light[0]!, blob, instruction], ranges: image.ranges });
        return;
      }
      case 'rect': {
        const path = this.paths.get(n);
        if (path === undefined) this.paths.set(n, { light: [instruction], ranges: [range] });
        else {
          path.light.push(instruction);
          addRange(path.ranges, range);
        }
        return;
      }
      case 'cfill': {
        const index = Number(args[1]);
        const path = this.paths.get(index);
        if (path === undefined) return;
        this.paths.delete(index);
        path.light.push(instruction);
        addRange(path.ranges, range);
        this.units.push(path);
        return;
      }
      case 'dispose':
        this.paths.delete(n);
        this.units.push({ light: [instruction], ranges: [range] });
        return;
      case 'copy':
      case 'transfer':
      case 'size':
        this.units.push({ light: [instruction], ranges: [range] });
        return;
      default:
        return;
    }
  }

  /**
   * The draws that make the picture now, as byte ranges of the file in the order to replay them
   * (and their bytes in all); only those are kept from now on. Undefined when the stretch cannot
   * be followed (an image whose header does not say its size): the writer needs the model then.
   */
  reference(): { draws: ByteRange[]; bytes: number } | undefined {
    const stretch: GuacInstruction[] = [];
    const effects: number[] = [];
    for (const unit of this.units) {
      for (const instruction of unit.light) stretch.push(instruction);
      effects.push(stretch.length - 1);
    }
    const kept = referencedDraws(stretch, this.base.surfaces);
    if (kept === undefined) return undefined;
    this.units = this.units.filter((_, i) => kept.has(effects[i]!));
    const draws = inFileOrder(this.units.flatMap((unit) => unit.ranges));
    return { draws, bytes: draws.reduce((sum, [start, end]) => sum + end - start, 0) };
  }

  /**
   * `model` made the picture the file shows now (up to `end`), with the images and fills still
   * open: from the base and the draws that show (reference()), or, when an image decodes to
   * another size than its header said, from the base and every byte since.
   */
  async rebuild(model: DisplayModel, end: number): Promise<void> {
    const referenced = this.reference();
    model.reset(this.base.surfaces);
    if (referenced !== undefined) {
      const open = [...this.images.values(), ...this.paths.values()].flatMap((u) => u.ranges);
      const ranges = inFileOrder([...referenced.draws, ...open]);
      const mismatches = model.mismatches;
      await applyAll(model, await instructionsIn(this.path, ranges, this.unconfirmed));
      if (model.mismatches === mismatches) return;
      model.reset(this.base.surfaces);
    }
    const unconfirmed = [...this.unconfirmed];
    for await (const batch of instructionsFrom(this.path, this.base.offset, end, unconfirmed))
      await applyAll(model, batch);
  }

  /** The file took (or dropped) `kept`: reads take it from this copy until confirmed. */
  track(kept: UnconfirmedChunk): void {
    this.unconfirmed.push(kept);
  }

  /** The disk confirmed `kept` and everything before it: the file itself has those bytes. */
  confirmed(kept: UnconfirmedChunk): void {
    const at = this.unconfirmed.indexOf(kept);
    if (at >= 0) this.unconfirmed.splice(0, at + 1);
  }

  /** Drawing noted at `start` that never reaches the file (a gap), kept for the model. */
  keep(start: number, text: string): void {
    if (text.length > 0) this.unconfirmed.push({ start, chunk: Buffer.from(text, 'utf8') });
  }
}

/**
 * `ranges` sorted and merged where they touch. Replaying the kept units' instructions in file
 * order is replaying the file without the others: a model draws an image at its `end`, and units
 * interleave only by their images' `img` and `blob`s, which draw nothing by themselves.
 */
function inFileOrder(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const merged: [number, number][] = [];
  for (const range of [...ranges].sort((a, b) => a[0] - b[0])) addRange(merged, range);
  return merged;
}

/** Appends `range`, merged into the last one when they touch. */
function addRange(ranges: [number, number][], range: readonly [number, number]): void {
  const last = ranges.at(-1);
  if (last !== undefined && last[1] === range[0]) last[1] = range[1];
  else ranges.push([range[0], range[1]]);
}

async function applyAll(model: DisplayModel, instructions: readonly GuacInstruction[]) {
  for (const instruction of instructions) {
    const pending = model.apply(instruction);
    if (pending) await pending;
  }
}
