// The frames of one browser that glances at a thumbnail of the screen (guacUser.ts's
// `thumbnail` attention: a fleet tile nobody points at). Each frame is what changed on the
// screen since the last one, moves included, scaled down from the framebuffer into a thumbnail
// that fits THUMBNAIL_BOX, as one image at the lowest lossy quality (a thumbnail is only looked
// at in passing), with `size` first whenever the thumbnail's size changes. Encodes are shared by
// every browser of the connection that glances at the same size (encodeCache.ts).
import { thumbnailSize } from '@overlay-companion/guac';
import {
  losslessMimetypeFor,
  lossyMimetypeFor,
  type EncodeMode,
  type LosslessMimetype,
  type LossyMimetype,
} from '../encode/imageTypes.js';
import { DEFAULT_LAYER, imageInstructions, type OutInstruction } from '../encode/instructions.js';
import { union, type Rect } from '../encode/rect.js';
import { thumbnailRegion } from '../encode/scaleDown.js';
import { qualityFor, SLOW_ROUND_TRIP_MS } from './encodePolicy.js';
import type { FrameSource } from './frameEncoder.js';
import type { PendingFrame } from './frameState.js';

export class ThumbnailFrames {
  private readonly lossyMimetype: LossyMimetype | undefined;
  private readonly losslessMimetype: LosslessMimetype;
  /** The thumbnail size the browser's display was last given (undefined: not a thumbnail). */
  private shown: { width: number; height: number } | undefined;

  constructor(
    private readonly source: FrameSource,
    /** Mimetypes the browser named in the handshake's `image` instruction. */
    imageTypes: readonly string[],
    /** The next free stream index of this browser's connection. */
    private readonly takeStream: () => number,
  ) {
    this.lossyMimetype = lossyMimetypeFor(imageTypes);
    this.losslessMimetype = losslessMimetypeFor(imageTypes);
  }

  /** The browser's display is no thumbnail any more (or must be sent as one from scratch). */
  reset(): void {
    this.shown = undefined;
  }

  /** The instructions of the thumbnail frame for `frame` (`sync` excluded). */
  async frame(frame: PendingFrame): Promise<OutInstruction[]> {
    const from = { width: this.source.width, height: this.source.height };
    const to = thumbnailSize(from.width, from.height);
    const shown = this.shown;
    this.shown = to;
    const resized = shown === undefined || shown.width !== to.width || shown.height !== to.height;
    const out: OutInstruction[] = [];
    if (resized) out.push(['size', DEFAULT_LAYER, to.width, to.height]);
    // Everything that changed, moves included, is scaled down again from the framebuffer.
    const changed = [...frame.rects, ...frame.copies].reduce<Rect | undefined>((all, r) => {
      const rect = { x: r.x, y: r.y, width: r.width, height: r.height };
      return all === undefined ? rect : union(all, rect);
    }, undefined);
    const redrawn = resized ? { x: 0, y: 0, ...from } : changed;
    if (redrawn === undefined) return out;
    const region = thumbnailRegion(redrawn, from, to);
    const mode: EncodeMode =
      this.lossyMimetype === undefined
        ? { kind: 'lossless', mimetype: this.losslessMimetype }
        : {
            kind: 'lossy',
            mimetype: this.lossyMimetype,
            quality: qualityFor(SLOW_ROUND_TRIP_MS),
            force: true,
            lossless: this.losslessMimetype,
          };
    const { mimetype, data } = await this.source.encodeThumbnail(to, region, mode);
    const { x, y } = region.target;
    out.push(...imageInstructions(this.takeStream(), DEFAULT_LAYER, x, y, mimetype, data));
    return out;
  }
}
