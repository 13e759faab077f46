// The image formats frames travel in and how the encoder is asked for one. PNG is always
// allowed (guacd assumes every client draws it); JPEG and WebP only when the client named them
// in the handshake's `image` instruction (the bridge names png, jpeg and webp; guacamole-common-js
// draws whatever its browser decodes).

export type ImageMimetype = 'image/png' | 'image/jpeg' | 'image/webp';
export type LossyMimetype = 'image/jpeg' | 'image/webp';

export interface EncodedImage {
  mimetype: ImageMimetype;
  data: Buffer;
  /** True when the pixels drawn from `data` only approximate the region (JPEG, lossy WebP). */
  lossy: boolean;
}

export type LosslessMimetype = 'image/png' | 'image/webp';

/**
 * What to encode a region as. `lossless`: exact pixels, as PNG or lossless WebP. `lossy`: JPEG
 * or WebP at `quality` (1–100) — unless `force` is false and the region's content suits
 * lossless encoding better (text and flat UI compress well losslessly and turn blurry when
 * lossy); then `lossless`.
 */
export type EncodeMode =
  | { kind: 'lossless'; mimetype: LosslessMimetype }
  | {
      kind: 'lossy';
      mimetype: LossyMimetype;
      quality: number;
      force: boolean;
      lossless: LosslessMimetype;
    };

/**
 * The exact format for a client: lossless WebP when it takes WebP — on desktop content (text,
 * UI) it is 5–20 times smaller than PNG at speed settings, for 2–3 times the encode time, and
 * every byte saved is one less for the bridge to relay and the browser to parse — else PNG.
 */
export function losslessMimetypeFor(accepted: readonly string[]): LosslessMimetype {
  return accepted.includes('image/webp') ? 'image/webp' : 'image/png';
}

/**
 * The lossy format for a client, from the mimetypes it accepts: JPEG first, because it
 * encodes about three times faster than WebP here (sharp, effort 0) at a similar size for
 * desktop content, and time is what a busy region is short of. Undefined: lossless only.
 */
export function lossyMimetypeFor(accepted: readonly string[]): LossyMimetype | undefined {
  if (accepted.includes('image/jpeg')) return 'image/jpeg';
  if (accepted.includes('image/webp')) return 'image/webp';
  return undefined;
}
