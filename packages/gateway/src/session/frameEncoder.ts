// Turns one browser's pending frame into Guacamole instructions: the size (and the move
// buffer's), the moves, per changed band either a few solid fills (small bands that simple) or
// one image encoded as this browser's policy says (encodePolicy.ts), and the cursor. It also keeps track of where this browser shows lossy
// pixels, in the order the browser draws (moves first, then images), so they can be redrawn
// exactly once they settle. Images are encoded concurrently; instructions come out in order.
// A thumbnail frame (a browser glancing at a scaled-down screen) is thumbnailFrames.ts's.
import {
  losslessMimetypeFor,
  lossyMimetypeFor,
  type EncodedImage,
  type EncodeMode,
  type LosslessMimetype,
  type LossyMimetype,
} from '../encode/imageTypes.js';
import {
  cursorInstructions,
  DEFAULT_LAYER,
  fillInstructions,
  imageInstructions,
  moveBufferSize,
  moveInstructions,
  type OutInstruction,
} from '../encode/instructions.js';
import { area, intersects, type Rect } from '../encode/rect.js';
import type { ThumbnailRegion } from '../encode/scaleDown.js';
import { solidRects } from '../encode/solidFill.js';
import {
  encodeModeFor,
  imageBands,
  MAX_FILL_RECTS,
  qualityFor,
  SMALL_IMAGE_PIXELS,
  type LossyPolicy,
} from './encodePolicy.js';
import type { CursorImage, PendingFrame } from './frameState.js';
import { LossyRegions } from './lossyRegions.js';

/** What frames are encoded from: the session's current framebuffer. */
export interface FrameSource {
  readonly framebuffer: Buffer | undefined;
  readonly width: number;
  readonly height: number;
  /** True between the first rectangle of an RFB update and its end: pixels are half-new. */
  readonly updating: boolean;
  /** A region of the current framebuffer, encoded; pixels are copied out before it returns. */
  encodeRegion(rect: Rect, mode: EncodeMode): Promise<EncodedImage>;
  encodeCursor(cursor: CursorImage): Promise<Buffer>;
  /** Part of the framebuffer's thumbnail of size `to`, encoded (shared like regions). */
  encodeThumbnail(
    to: { width: number; height: number },
    region: ThumbnailRegion,
    mode: EncodeMode,
  ): Promise<EncodedImage>;
  /** The area has been changing often lately (worth lossy encoding). */
  busy(rect: Rect, now: number): boolean;
}

export interface StreamingOptions {
  lossy: LossyPolicy;
  /** Lossy pixels unchanged this long are redrawn losslessly. */
  settleMs: number;
}

export class FrameEncoder {
  private lossy = new LossyRegions();
  private readonly lossyMimetype: LossyMimetype | undefined;
  private readonly losslessMimetype: LosslessMimetype;

  constructor(
    private readonly source: FrameSource,
    /** Mimetypes the browser named in the handshake's `image` instruction. */
    imageTypes: readonly string[],
    private readonly streaming: StreamingOptions,
    /** The next free stream index of this browser's connection. */
    private readonly takeStream: () => number,
  ) {
    this.lossyMimetype = lossyMimetypeFor(imageTypes);
    this.losslessMimetype = losslessMimetypeFor(imageTypes);
  }

  /**
   * The frame's instructions, `sync` excluded. `roundTripMs` is how long this browser takes to
   * acknowledge a frame: it sets the quality of lossy images. Pixels are copied out before the
   * first await (the RFB client keeps decoding into the framebuffer).
   */
  async encode(frame: PendingFrame, roundTripMs: number): Promise<OutInstruction[]> {
    const now = Date.now();
    // The browser runs the moves before drawing images: lossy pixels move with them.
    if (frame.size !== undefined) this.lossy.reset();
    for (const op of frame.copies) this.lossy.copied(op, now);
    const quality = qualityFor(roundTripMs);
    const fb = this.source.framebuffer;
    const pixels =
      fb === undefined ? undefined : new Uint32Array(fb.buffer, fb.byteOffset, fb.length >>> 2);
    const regions = frame.rects
      .flatMap((rect) => imageBands(rect))
      .map((rect) => {
        // Small and simple: solid fills, drawn without waiting for a decode.
        const fills =
          pixels !== undefined && area(rect) <= SMALL_IMAGE_PIXELS
            ? solidRects(pixels, this.source.width, rect, MAX_FILL_RECTS)
            : undefined;
        if (fills !== undefined) return { rect, fills, image: undefined };
        const mode = encodeModeFor(rect, {
          policy: this.streaming.lossy,
          lossyMimetype: this.lossyMimetype,
          losslessMimetype: this.losslessMimetype,
          refresh: frame.lossless.some((r) => intersects(r, rect)),
          busy: this.source.busy(rect, now),
          quality,
        });
        return { rect, fills, image: this.source.encodeRegion(rect, mode) };
      });
    const cursor = frame.cursor;
    const [images, cursorPng] = await Promise.all([
      Promise.all(regions.map(({ image }) => image ?? Promise.resolve(undefined))),
      cursor === undefined ? undefined : this.source.encodeCursor(cursor),
    ]);

    const out: OutInstruction[] = [];
    if (frame.size !== undefined) {
      out.push(['size', DEFAULT_LAYER, frame.size.width, frame.size.height]);
      out.push(moveBufferSize(frame.size.width, frame.size.height));
    }
    for (const op of frame.copies) out.push(...moveInstructions(op));
    const drawnAt = Date.now();
    regions.forEach(({ rect, fills }, i) => {
      if (fills !== undefined) {
        out.push(...fillInstructions(fills));
        this.lossy.drawnExact(rect);
        return;
      }
      const image = images[i];
      if (image === undefined) return;
      const { mimetype, data } = image;
      out.push(
        ...imageInstructions(this.takeStream(), DEFAULT_LAYER, rect.x, rect.y, mimetype, data),
      );
      if (image.lossy) this.lossy.drawnLossy(rect, drawnAt);
      else this.lossy.drawnExact(rect);
    });
    if (cursor !== undefined && cursorPng !== undefined) {
      // A 0×0 cursor (the desktop hides it) is sent as one transparent pixel.
      const { width, height } =
        cursor.width > 0 && cursor.height > 0 ? cursor : { width: 1, height: 1 };
      out.push(
        ...cursorInstructions(
          this.takeStream(),
          cursor.hotX,
          cursor.hotY,
          width,
          height,
          cursorPng,
        ),
      );
    }
    return out;
  }

  /**
   * Which images this encoder makes (its lossy and lossless mimetypes): encoders of the same
   * kind turn the same frame into the same instructions, so they can share a stream.
   */
  get kind(): string {
    return `${this.lossyMimetype ?? 'none'}|${this.losslessMimetype}`;
  }

  /** Where the browser shows lossy pixels now, as a copy. */
  lossySnapshot(): LossyRegions {
    return this.lossy.clone();
  }

  /** The browser's screen is lossy where `lossy` says (and nowhere else). */
  adoptLossy(lossy: LossyRegions): void {
    this.lossy = lossy;
  }

  /** The browser's screen is also lossy where `lossy` says. */
  mergeLossy(lossy: LossyRegions): void {
    this.lossy.merge(lossy);
  }

  resetLossy(): void {
    this.lossy.reset();
  }

  /** Takes out the lossy regions that have settled by `now`: they need an exact redraw. */
  takeSettled(now: number): Rect[] {
    return this.lossy.takeSettled(now, this.streaming.settleMs);
  }

  /** When the next lossy region settles (undefined: nothing lossy on screen). */
  nextSettle(): number | undefined {
    return this.lossy.nextSettle(this.streaming.settleMs);
  }
}
