// The frames of one browser that glances at a thumbnail of the screen (guacUser.ts's
// `thumbnail` attention: a fleet tile nobody points at). Each frame is what changed on the
// screen since the last one, moves included, scaled down from the framebuffer into a thumbnail
// that fits THUMBNAIL_BOX, as one image at the lowest lossy quality (a thumbnail is only looked
// at in passing), with `size` first whenever the thumbnail's size changes. Encodes are shared by
// every browser of the connection that glances at the same size (encodeCache.ts).
//
// Two things keep twenty tiles cheap where a full viewer is cheap by nature. While the screen's
// content moves (a scroll, a dragged window), a full viewer gets each move as a `copy` of pixels
// it already has, but a thumbnail gets the moved area scaled and encoded again (a move by a
// number of pixels the scale does not divide cannot be replayed exactly in the thumbnail): so a
// thumbnail of moving content comes every MOVING_THUMBNAIL_INTERVAL_MS instead of every
// GLANCE_FRAME_INTERVAL_MS, on the same shared ticks, until MOVE_MEMORY_FRAMES frames have passed
// without a move (the VNC server, asked for an update once an interval, now and then sends a
// scrolled area redrawn rather than moved). And each image is one `blob`: guacamole-common-js makes a Blob
// and sends an `ack` for every blob it receives, which costs a tile more than decoding its
// small image when the image is split the way full frames are (guacd's 6048 bytes).
import { GLANCE_FRAME_INTERVAL_MS, thumbnailSize } from '@overlay-companion/guac';
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

/** How often a thumbnail gets a frame while the screen's content moves. */
export const MOVING_THUMBNAIL_INTERVAL_MS = 2 * GLANCE_FRAME_INTERVAL_MS;
/** Content counts as moving while one of this many last frames moved some. */
const MOVE_MEMORY_FRAMES = 3;

export class ThumbnailFrames {
  private readonly lossyMimetype: LossyMimetype | undefined;
  private readonly losslessMimetype: LosslessMimetype;
  /** The thumbnail size the browser's display was last given (undefined: not a thumbnail). */
  private shown: { width: number; height: number } | undefined;
  /** Frames since the last one that moved content (a scroll); Infinity: none did lately. */
  private sinceMove = Number.POSITIVE_INFINITY;

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
    this.sinceMove = Number.POSITIVE_INFINITY;
  }

  /** How long after the last frame the next one may go out (frames fall on its multiples). */
  get intervalMs(): number {
    return this.sinceMove < MOVE_MEMORY_FRAMES
      ? MOVING_THUMBNAIL_INTERVAL_MS
      : GLANCE_FRAME_INTERVAL_MS;
  }

  /** The instructions of the thumbnail frame for `frame` (`sync` excluded). */
  async frame(frame: PendingFrame): Promise<OutInstruction[]> {
    const from = { width: this.source.width, height: this.source.height };
    const to = thumbnailSize(from.width, from.height);
    const shown = this.shown;
    this.shown = to;
    const resized = shown === undefined || shown.width !== to.width || shown.height !== to.height;
    this.sinceMove = frame.copies.length > 0 ? 0 : this.sinceMove + 1;
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
    const stream = this.takeStream();
    // The image's `img` and `end` as every frame has them, with the whole image in one blob.
    const [img, end] = imageInstructions(stream, DEFAULT_LAYER, x, y, mimetype, Buffer.alloc(0));
    out.push(img!, ['blob', stream, data.toString('base64')], end!);
    return out;
  }
}
