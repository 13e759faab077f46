// The bridge's own pass over every screenshot that leaves it (take_screenshot and the periodic
// captures behind screenshot://latest, which both come through the hub): the person's privacy
// masks are painted black into the image itself, whatever the viewer did. The viewer already
// blacks them out; doing it again here means an old or broken page cannot leak a masked area,
// and it fails closed — an image that cannot be read, or is not the size the viewer says, does
// not go out. Where the masks land comes from the region and scale the viewer reports: only the
// person's own signed-in page can be a viewer, so a page lying about them is not defended here.
import {
  ProtocolError,
  masksInImage,
  type PrivacyMask,
  type TakeScreenshotViewerResult,
} from '@overlay-companion/protocol';
import sharp from 'sharp';

/** JPEG quality for a re-encoded masked JPEG (the viewer's own default is 85). */
const MASKED_JPEG_QUALITY = 90;

export async function maskScreenshot(
  result: TakeScreenshotViewerResult,
  masks: readonly PrivacyMask[],
): Promise<TakeScreenshotViewerResult> {
  const rects = masksInImage(masks, result.region, result.scale, result);
  if (rects.length === 0) return result;
  try {
    const image = sharp(Buffer.from(result.data, 'base64'));
    const meta = await image.metadata();
    if (meta.width !== result.width || meta.height !== result.height) {
      throw new Error(
        `the image is ${meta.width}×${meta.height}, the viewer said ${result.width}×${result.height}`,
      );
    }
    const black = rects.map((r) => ({
      input: {
        create: { width: r.width, height: r.height, channels: 3 as const, background: '#000000' },
      },
      left: r.x,
      top: r.y,
    }));
    const painted = image.composite(black);
    const encoded =
      result.format === 'png'
        ? await painted.png().toBuffer()
        : await painted.jpeg({ quality: MASKED_JPEG_QUALITY }).toBuffer();
    return { ...result, data: encoded.toString('base64'), byte_length: encoded.length };
  } catch (err) {
    throw new ProtocolError(
      'system_error',
      `The screenshot could not be checked against the person's privacy masks, so it was not sent (${err instanceof Error ? err.message : String(err)}). Try again.`,
    );
  }
}
