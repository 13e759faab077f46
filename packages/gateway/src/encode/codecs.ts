// Encodes tight RGBA pixels into the image a frame carries: exact pixels of at most 256 colours
// (text, UI) as an indexed PNG (pngSync.ts), whatever lossless type the browser prefers, since
// that is cheapest; otherwise with sharp: PNG (png.ts's settings), JPEG, or WebP (lossy or
// lossless) at effort 0, the fastest. Runs inside the encode workers (encodeWorker.ts); the
// choice between lossy and lossless for `lossy` requests that are not forced is made here too,
// from the pixels themselves (lossyFit.ts). Part of a thumbnail is scaled down and encoded by
// thumbnailImage.ts.
import sharp from 'sharp';
import type { ThumbnailScale } from './encodeMessages.js';
import type { EncodedImage, EncodeMode } from './imageTypes.js';
import { worthLossy } from './lossyFit.js';
import { encodePng } from './png.js';
import { encodeIndexedPngSync } from './pngSync.js';
import { encodeThumbnailPart } from './thumbnailImage.js';

export async function encodeImage(
  rgba: Buffer,
  width: number,
  height: number,
  mode: EncodeMode,
  thumbnail?: ThumbnailScale,
): Promise<EncodedImage> {
  if (thumbnail !== undefined) return encodeThumbnailPart(rgba, mode, thumbnail);
  if (mode.kind === 'lossy' && (mode.force || worthLossy(rgba, width, height))) {
    const image = sharp(rgba, { raw: { width, height, channels: 4 } }).removeAlpha();
    const data =
      mode.mimetype === 'image/jpeg'
        ? await image.jpeg({ quality: mode.quality }).toBuffer()
        : await image.webp({ quality: mode.quality, effort: 0 }).toBuffer();
    return { mimetype: mode.mimetype, data, lossy: true };
  }
  const indexed = encodeIndexedPngSync(rgba, width, height);
  if (indexed !== undefined) return { mimetype: 'image/png', data: indexed, lossy: false };
  const exact = mode.kind === 'lossless' ? mode.mimetype : mode.lossless;
  if (exact === 'image/webp') {
    const image = sharp(rgba, { raw: { width, height, channels: 4 } }).removeAlpha();
    return {
      mimetype: 'image/webp',
      data: await image.webp({ lossless: true, effort: 0 }).toBuffer(),
      lossy: false,
    };
  }
  return { mimetype: 'image/png', data: await encodePng(rgba, width, height), lossy: false };
}
