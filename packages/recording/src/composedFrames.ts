// The pictures the writer composes itself, as protocol text for the file, when the server's
// drawing cannot be passed through: while a privacy mask is in force (layer 0's changed region
// from the display model, the masks painted black, as one PNG), when the masks go (the buffers
// drawn on meanwhile, brought up to date with the pixels copied from under a mask painted black:
// maskTaint.ts), and after a gap (every surface in full). Also keeps layer 0's size as the file
// last set it, so a resize made while nothing was passed through reaches the file.
import { encodeInstruction } from '@overlay-companion/guac';
import type { DisplayModel } from './displayModel.js';
import { encodePng, imageText, maskedRegion } from './frames.js';
import { clip, CompositeMask, isEmpty, type Rect } from './layers.js';
import type { MaskTaint } from './maskTaint.js';

export class ComposedFrames {
  /** Layer 0's size as the file last set it. */
  private fileScreen = { width: -1, height: -1 };

  constructor(
    private readonly model: DisplayModel,
    private readonly taint: MaskTaint,
  ) {}

  /** The server's own `size` of layer 0 reached the file. */
  screenSized(width: number, height: number): void {
    this.fileScreen = { width, height };
  }

  /** Layer 0's `area` (undefined: nothing) with `masks` painted black, as one image. */
  async screen(area: Rect | undefined, masks: readonly Rect[]): Promise<string> {
    let out = '';
    const screen = this.model.screen;
    if (screen.width !== this.fileScreen.width || screen.height !== this.fileScreen.height) {
      // The server resized the desktop while its instructions were not passed through.
      out += encodeInstruction('size', 0, screen.width, screen.height);
      this.fileScreen = { width: screen.width, height: screen.height };
    }
    if (area === undefined) return out;
    const rect = clip(area, screen.width, screen.height);
    if (isEmpty(rect)) return out;
    const region = maskedRegion(screen, rect, masks);
    const png = await encodePng(region.rgba, region.rect.width, region.rect.height);
    return out + imageText(0, region.rect.x, region.rect.y, png, CompositeMask.OVER);
  }

  /** Buffers (and other layers) brought up to date in the file, tainted pixels blacked first. */
  async buffers(indices: readonly number[]): Promise<string> {
    let out = '';
    for (const index of indices) {
      if (index === 0) continue;
      this.taint.sanitize(index, this.model.surfaces.get(index));
      const surface = this.model.surfaces.get(index);
      if (surface === undefined) {
        out += encodeInstruction('dispose', index);
        continue;
      }
      out += encodeInstruction('size', index, surface.width, surface.height);
      if (surface.width === 0 || surface.height === 0) continue;
      const png = await encodePng(surface.rgba, surface.width, surface.height);
      out += imageText(index, 0, 0, png, CompositeMask.SRC);
    }
    return out;
  }

  /** Every surface, in full (layer 0 with `masks` black): the file's picture starts over. */
  async everything(masks: readonly Rect[]): Promise<string> {
    const out = await this.buffers([...this.model.surfaces.keys()].filter((i) => i !== 0));
    const screen = this.model.screen;
    this.fileScreen = { width: -1, height: -1 };
    this.model.takeDirty();
    return (
      out + (await this.screen({ x: 0, y: 0, width: screen.width, height: screen.height }, masks))
    );
  }
}
