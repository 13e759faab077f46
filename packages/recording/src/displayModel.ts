// The display model: the server→client Guacamole drawing instructions applied, in order, to RGBA
// layers (index ≥ 0) and buffers (index < 0), the way guacamole-common-js's Display would draw
// them — so the recorder can compose frames with masks, write keyframes, and the reader can show
// the picture at any moment. Layer 0 (the desktop) is what it gives out; other visible layers are
// kept as surfaces but not composited onto it (neither our gateway nor guacd's VNC and RDP
// support draw on them).
//
// What guacd 1.6 and our gateway send, and what is drawn:
// - `size` (layer, w, h): resize keeping the overlap.
// - `img` + `blob`… + `end`: PNG, JPEG, WebP decoded with sharp; SRC replaces, OVER blends.
// - `copy` (incl. guacd 1.6's copies to and from each layer's last-frame buffer, and the
//   gateway's moves through buffer -2); `transfer` (binary raster operations).
// - `rect` paths filled by `cfill` (guacd clears non-opaque layers with ROUT/RATOP fills).
// - `dispose`; `sync` ends a frame (the model has nothing to do for it).
// Buffers (negative indices) grow to fit what is drawn into them, as guacamole-common-js's
// auto-sized buffers do; a layer drawn on before any `size` starts empty (0×0) and grows too.
// Ignored, on purpose: `cursor` and `mouse` (the pointer is not part of the desktop's pixels —
// xwd does not show it either), `shade`, `move`, `set`, `distort` (layer composition), the path
// and stroke operations neither server sends (`arc`, `curve`, `line`, `start`, `close`, `clip`,
// `cstroke`, `lstroke`, `lfill`, `push`, `pop`, `reset`, `identity`, `transform`), streams that
// are not images (`clipboard`, `file`, `pipe`, `audio`, `video`, `ack`), and `nop`, `name`,
// `msg`, `required`, `argv`, `error`, `disconnect`, and any opcode not named here.
import sharp, { type OutputInfo } from 'sharp';
import type { GuacInstruction } from '@overlay-companion/guac';
import { imageSize, type ImageSize } from './imageHeader.js';
import {
  CompositeMask,
  copyGeometry,
  copyRect,
  drawImage,
  emptySurface,
  fillRects,
  grownSize,
  resized,
  transferRect,
  union,
  sizeAllowed,
  type Rect,
  type Surface,
} from './layers.js';

interface PendingImage {
  layer: number;
  mask: number;
  x: number;
  y: number;
  /** The `img` instruction's mimetype. */
  mimetype: string;
  chunks: string[];
}

/**
 * Told about every draw, after it happened: the recorder uses it to follow which buffer pixels
 * came from the screen while a privacy mask was in force.
 */
export interface DrawObserver {
  /** `rect` of `layer` was drawn from server data (image or fill). */
  drawn?(layer: number, rect: Rect): void;
  /** `from` of `src` was copied to `to` of `dst` (already clipped to both). */
  copied?(src: number, from: Rect, dst: number, to: Rect): void;
  disposed?(layer: number): void;
}

const int = (value: string | undefined): number => {
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
};

export class DisplayModel {
  readonly surfaces = new Map<number, Surface>();
  /**
   * Images drawn whose header said one size and that decoded to another, or not at all (drawn as
   * a browser would: at their decoded size, or not). A model that skipped draws by their headers
   * (visibleDraws.ts) may then differ from one that drew everything.
   */
  mismatches = 0;
  /** What of layer 0 changed since the last takeDirty(). */
  private dirty: Rect | undefined;
  private readonly images = new Map<number, PendingImage>();
  private readonly paths = new Map<number, Rect[]>();

  constructor(private readonly observer: DrawObserver = {}) {}

  /** Layer 0: the desktop's pixels (empty 0×0 until the server sized it). */
  get screen(): Surface {
    return this.surfaces.get(0) ?? emptySurface(0, 0);
  }

  /** The region of layer 0 changed since the last call, and forgets it. */
  takeDirty(): Rect | undefined {
    const dirty = this.dirty;
    this.dirty = undefined;
    return dirty;
  }

  /** Marks a region of layer 0 changed (e.g. because a mask moved over it). */
  markDirty(rect: Rect): void {
    this.dirty = union(this.dirty, rect);
  }

  /** Starts over from `surfaces` (copies of a keyframe's pictures), nothing pending. */
  reset(surfaces: ReadonlyMap<number, Surface>): void {
    this.surfaces.clear();
    this.images.clear();
    this.paths.clear();
    for (const [index, s] of surfaces)
      this.setSurface(index, { width: s.width, height: s.height, rgba: Buffer.from(s.rgba) });
  }

  /** Replaces a surface outright (a keyframe's picture). */
  setSurface(index: number, surface: Surface): void {
    this.surfaces.set(index, surface);
    if (index === 0) this.markDirty({ x: 0, y: 0, width: surface.width, height: surface.height });
  }

  /**
   * Applies one instruction. Returns a promise only when it has to decode an image (at an
   * image stream's `end`); callers must wait for it before applying the next instruction.
   */
  apply({ opcode, args }: GuacInstruction): Promise<void> | undefined {
    const n = (i: number): number => int(args[i]);
    switch (opcode) {
      case 'size': {
        const [index, w, h] = [n(0), n(1), n(2)];
        if (!sizeAllowed(w, h)) return undefined;
        this.surfaces.set(index, resized(this.surfaces.get(index), w, h));
        if (index === 0) this.markDirty({ x: 0, y: 0, width: w, height: h });
        return undefined;
      }
      case 'img':
        this.images.set(n(0), {
          mask: n(1),
          layer: n(2),
          mimetype: args[3] ?? '',
          x: n(4),
          y: n(5),
          chunks: [],
        });
        return undefined;
      case 'blob':
        this.images.get(n(0))?.chunks.push(args[1] ?? '');
        return undefined;
      case 'end': {
        const image = this.images.get(n(0));
        if (image === undefined) return undefined;
        this.images.delete(n(0));
        return this.drawImage(image);
      }
      case 'copy': {
        const from = { x: n(1), y: n(2), width: n(3), height: n(4) };
        this.copy(n(0), from, n(6), n(7), n(8), n(5), undefined);
        return undefined;
      }
      case 'transfer': {
        const from = { x: n(1), y: n(2), width: n(3), height: n(4) };
        this.copy(n(0), from, n(6), n(7), n(8), CompositeMask.SRC, n(5));
        return undefined;
      }
      case 'rect': {
        const rect = { x: n(1), y: n(2), width: n(3), height: n(4) };
        const path = this.paths.get(n(0));
        if (path) path.push(rect);
        else this.paths.set(n(0), [rect]);
        return undefined;
      }
      case 'cfill': {
        const index = n(1);
        const path = this.paths.get(index) ?? [];
        this.paths.delete(index);
        let bounds: Rect | undefined;
        for (const r of path) bounds = union(bounds, r);
        if (bounds === undefined) return undefined;
        const surface = this.surfaceFor(index, bounds);
        fillRects(surface, path, [n(2), n(3), n(4), n(5)], n(0));
        this.touched(index, bounds);
        return undefined;
      }
      case 'dispose':
        this.surfaces.delete(n(0));
        this.paths.delete(n(0));
        this.observer.disposed?.(n(0));
        return undefined;
      default:
        // sync and everything named in the header as ignored.
        return undefined;
    }
  }

  /**
   * Takes a `copy`, or an image stream's `end` (the image being `size`), into account without
   * drawing it: surfaces grow, layer 0's changed area and the observer hear of it as if it had
   * been drawn, and its pixels stay as they were — for draws nothing will look at
   * (visibleDraws.ts). Anything else is applied.
   */
  skip(instruction: GuacInstruction, size: ImageSize | null): Promise<void> | undefined {
    const n = (i: number): number => int(instruction.args[i]);
    if (instruction.opcode === 'end' && size !== null) {
      const image = this.images.get(n(0));
      if (image === undefined) return undefined;
      this.images.delete(n(0));
      const rect = { x: image.x, y: image.y, ...size };
      this.surfaceFor(image.layer, rect);
      this.touched(image.layer, rect);
      return undefined;
    }
    if (instruction.opcode !== 'copy') return this.apply(instruction);
    const src = this.surfaces.get(n(0));
    if (src === undefined) return undefined;
    const from = { x: n(1), y: n(2), width: n(3), height: n(4) };
    const dst = this.surfaceFor(n(6), { x: n(7), y: n(8), width: from.width, height: from.height });
    const { read, to } = copyGeometry(src, from, dst, n(7), n(8));
    if (to.width <= 0 || to.height <= 0) return undefined;
    if (n(6) === 0) this.markDirty(to);
    this.observer.copied?.(n(0), read, n(6), to);
    return undefined;
  }

  private async drawImage(image: PendingImage): Promise<void> {
    const bytes = Buffer.from(image.chunks.join(''), 'base64');
    const declared = imageSize(image.mimetype, bytes);
    let decoded: { data: Buffer; info: OutputInfo };
    try {
      decoded = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    } catch {
      // A browser skips an image it cannot decode; so does the model.
      if (declared !== undefined) this.mismatches++;
      return;
    }
    const { data, info } = decoded;
    if (
      declared !== undefined &&
      (declared.width !== info.width || declared.height !== info.height)
    )
      this.mismatches++;
    const rect = { x: image.x, y: image.y, width: info.width, height: info.height };
    const surface = this.surfaceFor(image.layer, rect);
    const opaque = withoutAlpha(image.mimetype, bytes);
    drawImage(surface, data, info.width, info.height, image.x, image.y, image.mask, opaque);
    this.touched(image.layer, rect);
  }

  private copy(
    srcIndex: number,
    from: Rect,
    dstIndex: number,
    dx: number,
    dy: number,
    mask: number,
    transferFn: number | undefined,
  ): void {
    const src = this.surfaces.get(srcIndex);
    if (src === undefined) return;
    const dst = this.surfaceFor(dstIndex, { x: dx, y: dy, width: from.width, height: from.height });
    const to =
      transferFn === undefined
        ? copyRect(src, from, dst, dx, dy, mask)
        : transferRect(src, from, transferFn, dst, dx, dy);
    if (to.width <= 0 || to.height <= 0) return;
    if (dstIndex === 0) this.markDirty(to);
    const clippedFrom = { x: from.x + (to.x - dx), y: from.y + (to.y - dy), ...size(to) };
    this.observer.copied?.(srcIndex, clippedFrom, dstIndex, to);
  }

  private touched(index: number, rect: Rect): void {
    if (index === 0) this.markDirty(rect);
    this.observer.drawn?.(index, rect);
  }

  /** The surface at `index`, grown to hold `rect` when it is a buffer or was never sized. */
  private surfaceFor(index: number, rect: Rect): Surface {
    const current = this.surfaces.get(index);
    const size = grownSize(index, current, rect);
    if (size === undefined && current !== undefined) return current;
    const surface = resized(current, size?.width ?? 0, size?.height ?? 0);
    this.surfaces.set(index, surface);
    return surface;
  }
}

const size = (r: Rect): { width: number; height: number } => ({
  width: r.width,
  height: r.height,
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Whether an image's format says it has no alpha, so every decoded pixel is opaque: JPEG (no
 * alpha channel), or a PNG of colour type 0, 2 or 3 (grey, RGB, palette) with no `tRNS` chunk
 * before its data. Anything else (WebP, a palette, a malformed header) is scanned by drawImage.
 */
export function withoutAlpha(mimetype: string, bytes: Buffer): boolean {
  if (mimetype === 'image/jpeg') return bytes[0] === 0xff && bytes[1] === 0xd8;
  if (mimetype !== 'image/png' || bytes.length < 33) return false;
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE) || bytes.toString('latin1', 12, 16) !== 'IHDR')
    return false;
  // Grey, RGB, or a palette (whose entries have alpha only through tRNS).
  const colourType = bytes[25];
  if (colourType !== 0 && colourType !== 2 && colourType !== 3) return false;
  // Chunks: length (4), type (4), data, CRC (4). tRNS (a transparent colour) precedes IDAT.
  for (let at = 8; at + 8 <= bytes.length;) {
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (type === 'tRNS') return false;
    if (type === 'IDAT') return true;
    at += 12 + bytes.readUInt32BE(at);
  }
  return false;
}
