// The writer's own picture of the desktop, for what cannot pass the server's drawing through: the
// display model with the masks in force and the mask taint (which buffer pixels were copied from
// under a mask), the frames composed from it while a mask is in force, when the masks go and
// after a gap (composedFrames.ts), and the keyframes. While no mask is in force and no gap is open
// the writer keeps no picture at all: the references note which of the file's draws make it, and
// its keyframes name those (drawReferences.ts); the model then stays as it was until it is built
// from the file again (goLive()). The references start at the recording's start (nothing drawn)
// and, after a mask or a gap, at a pixel keyframe written where they take over.
import type { GuacInstruction } from '@overlay-companion/guac';
import type { BoundedFile } from './boundedFile.js';
import { ComposedFrames } from './composedFrames.js';
import { DisplayModel } from './displayModel.js';
import { DrawReferences } from './drawReferences.js';
import type { Keyframes } from './keyframes.js';
import type { Rect } from './layers.js';
import { MaskTaint } from './maskTaint.js';
import type { RecordingOutput } from './recordingOutput.js';

export class WriterPicture {
  readonly model: DisplayModel;
  readonly composed: ComposedFrames;
  /** The masks in force. */
  masks: Rect[] = [];
  /** True while a mask is in force: the file gets composed frames, not the server's drawing. */
  composing = false;
  /** Per buffer, rectangles holding screen pixels that were under a mask. */
  private readonly taint = new MaskTaint();
  /** Surfaces other than layer 0 drawn on while composing (the file has not seen it). */
  private readonly touchedWhileComposing = new Set<number>();

  constructor(
    private readonly output: RecordingOutput,
    private readonly keyframes: Keyframes,
    private readonly file: BoundedFile,
    private readonly path: string,
  ) {
    // The recording starts with nothing drawn: the references need no picture under them.
    output.references = new DrawReferences({ surfaces: new Map(), entries: [], offset: 0 }, path);
    this.model = new DisplayModel({
      copied: (src, from, dst, to) => {
        if (dst === 0) return;
        if (this.composing) this.touchedWhileComposing.add(dst);
        this.taint.copied(src, from, dst, to, this.masks);
      },
      drawn: (layer) => {
        if (this.composing && layer !== 0) this.touchedWhileComposing.add(layer);
      },
      disposed: (layer) => {
        this.taint.forget(layer);
        if (this.composing) this.touchedWhileComposing.add(layer);
      },
    });
    this.composed = new ComposedFrames(this.model, this.taint);
  }

  apply(instruction: GuacInstruction): Promise<void> | undefined {
    return this.model.apply(instruction);
  }

  /**
   * The masks in force from now: `rects`. In a gap nothing reaches the file (the resume keyframe
   * is composed with the masks of then). Otherwise returns the frame the file gets now, without
   * its `sync` — the masked picture, or, when the last mask goes, the picture behind it and the
   * buffers brought up to date — after `endStreams()` when composing starts (the server's image
   * streams open now must not reach the file any further); undefined when there is none.
   */
  async masksChanged(
    rects: Rect[],
    inGap: boolean,
    endStreams: () => string,
  ): Promise<string | undefined> {
    for (const r of [...this.masks, ...rects]) this.model.markDirty(r);
    this.masks = rects;
    if (inGap) {
      if (rects.length > 0) this.composing = true;
      return undefined;
    }
    let out = '';
    if (rects.length > 0 && !this.composing) {
      this.composing = true;
      out += endStreams();
    }
    if (!this.composing) return undefined;
    if (rects.length === 0) {
      out += await this.composed.buffers([...this.touchedWhileComposing]);
      this.touchedWhileComposing.clear();
      this.composing = false;
    }
    return out + (await this.composed.screen(this.model.takeDirty(), this.masks));
  }

  /** At a frame's end: what the file gets of the picture (while composing), else nothing. */
  async frame(): Promise<string> {
    if (this.composing) return this.composed.screen(this.model.takeDirty(), this.masks);
    this.model.takeDirty();
    return '';
  }

  /** After a gap: every surface in full for the file, which starts over from it. */
  async everything(): Promise<string> {
    const out = await this.composed.everything(this.masks);
    this.composing = this.masks.length > 0;
    this.touchedWhileComposing.clear();
    return out;
  }

  /** Whether the model is not kept (the references follow the file). */
  get following(): boolean {
    return this.output.references !== undefined;
  }

  /**
   * The model is built to the picture the file shows now (what it took, and the references' own
   * copies of what it did not), and from now on the writer keeps it current.
   */
  async goLive(): Promise<void> {
    const references = this.output.references;
    if (references === undefined) return;
    this.output.references = undefined;
    await references.rebuild(this.model, this.file.accepted);
    // The model holds the file's pixels now, which were never under a mask.
    this.taint.forgetAll();
    this.model.takeDirty();
  }

  /**
   * A frame was written, up to `offset`, at `t`: its keyframe if one is due (an idle screen needs
   * none: a seek replays the few frames since the last one). With `mayFollow` (no mask, no gap)
   * the references take over from a pixel keyframe here.
   */
  async frameWritten(t: number, offset: number, mayFollow: boolean): Promise<void> {
    const references = this.output.references;
    if (references !== undefined) {
      if (!this.keyframes.due(t, offset)) return;
      const referenced = references.reference();
      if (referenced !== undefined) {
        this.keyframes.reference(t, offset, references.base, referenced.draws, referenced.bytes);
        return;
      }
      // A draw the references cannot follow (an image whose header does not say its size).
      await this.goLive();
      await this.keyframe(t, offset);
      return;
    }
    if (mayFollow) {
      const base = await this.keyframe(t, offset);
      if (base !== undefined && this.file.failure === undefined && this.file.accepted === offset)
        this.output.references = new DrawReferences(
          { surfaces: base.surfaces, entries: base.entries, offset },
          this.path,
        );
      return;
    }
    if (this.keyframes.due(t, offset)) await this.keyframe(t, offset);
  }

  /** The picture as the pixel keyframe at `t`, `offset` (masks and taint painted black). */
  private keyframe(t: number, offset: number) {
    return this.keyframes.write(this.model, t, offset, this.masks, (index) => this.taint.of(index));
  }
}
