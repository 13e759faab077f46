// Whether a region's content is worth encoding lossy. Deflate (PNG) thrives on repetition:
// text, flat UI and window chrome are long runs of one colour and come out small and exact,
// while JPEG smears their edges and saves little. Photos, video and gradients barely repeat,
// and there JPEG is a fraction of the size. The measure is the share of pixels equal to their
// left neighbour, on every other row (plenty for a decision, half the work).

/** Below this share of repeated pixels, lossy encoding pays off. */
export const LOSSY_MAX_REPEAT_SHARE = 0.4;

/** Share (0–1) of sampled pixels of tight RGBA `rgba` equal to the pixel on their left. */
export function repeatShare(rgba: Uint8Array, width: number, height: number): number {
  if (width < 2 || height < 1) return 1;
  const pixels = new Uint32Array(rgba.buffer, rgba.byteOffset, width * height);
  let same = 0;
  let compared = 0;
  for (let y = 0; y < height; y += 2) {
    let at = y * width;
    let left = pixels[at]! | 0xff000000;
    const end = at + width;
    for (at++; at < end; at++) {
      const pixel = pixels[at]! | 0xff000000;
      if (pixel === left) same++;
      left = pixel;
    }
    compared += width - 1;
  }
  return same / compared;
}

export function worthLossy(rgba: Uint8Array, width: number, height: number): boolean {
  return repeatShare(rgba, width, height) < LOSSY_MAX_REPEAT_SHARE;
}
