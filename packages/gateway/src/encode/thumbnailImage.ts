// Encodes part of a thumbnail (guacUser.ts's `thumbnail` attention): the screen pixels under it
// are scaled down first (scaleDown.ts: cheaper than sharp's resize) and then encoded as the mode
// says. A thumbnail is glanced at, never read closely, and its images are small: the lossy
// formats skip their slower passes (JPEG's optimised Huffman tables save about 5% of the bytes
// for twice the encoding time; WebP already runs at effort 0). The AI's screenshots never come
// this way.
import sharp from 'sharp';
import type { ThumbnailScale } from './encodeMessages.js';
import type { EncodedImage, EncodeMode } from './imageTypes.js';
import { scaleDown } from './scaleDown.js';

export async function encodeThumbnailPart(
  rgba: Buffer,
  mode: EncodeMode,
  { from, to, target }: ThumbnailScale,
): Promise<EncodedImage> {
  const rgb = scaleDown(rgba, from, to, target);
  const image = sharp(rgb, { raw: { width: target.width, height: target.height, channels: 3 } });
  if (mode.kind === 'lossy') {
    const data =
      mode.mimetype === 'image/jpeg'
        ? await image.jpeg({ quality: mode.quality, optimiseCoding: false }).toBuffer()
        : await image.webp({ quality: mode.quality, effort: 0 }).toBuffer();
    return { mimetype: mode.mimetype, data, lossy: true };
  }
  const data =
    mode.mimetype === 'image/webp'
      ? await image.webp({ lossless: true, effort: 0 }).toBuffer()
      : await image.png({ compressionLevel: 1 }).toBuffer();
  return { mimetype: mode.mimetype, data, lossy: false };
}
