// The one binary frame on /ws/viewer: a take_screenshot answer whose image travels as raw bytes
// instead of base64 inside a JSON tool_result (a third fewer bytes, no base64 pass in the page,
// no JSON parse of megabytes in the bridge). Layout: a 4-byte big-endian header length, the
// header as UTF-8 JSON (ImageAnswerHeader: the call id and the screenshot's metadata), then the
// encoded image, exactly `byte_length` bytes. Only the viewer sends it; everything else on the
// socket stays JSON text. The parser never throws and checks every length before reading.
import { z } from 'zod';
import { Id } from './common.js';
import { formatZodIssues } from './errors.js';
import { TakeScreenshotResult } from './tools/screen.js';

/** Largest header: the metadata is a few hundred bytes. */
export const MAX_IMAGE_HEADER_BYTES = 16 * 1024;
/** Largest image in one frame: the result schema's byte_length bound. */
export const MAX_IMAGE_FRAME_BYTES = 16 * 1024 * 1024;
const LENGTH_BYTES = 4;

export const ImageAnswerHeader = z.strictObject({
  type: z.literal('tool_result_image'),
  id: Id.describe('The take_screenshot call this answers.'),
  result: TakeScreenshotResult,
});
export type ImageAnswerHeader = z.infer<typeof ImageAnswerHeader>;

export type ImageFrameParse =
  { ok: true; header: ImageAnswerHeader; image: Uint8Array } | { ok: false; error: string };

/** One binary frame for `header` and its image (the header's byte_length must be image.length). */
export function encodeImageFrame(
  header: ImageAnswerHeader,
  image: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const frame = new Uint8Array(LENGTH_BYTES + json.length + image.length);
  new DataView(frame.buffer).setUint32(0, json.length);
  frame.set(json, LENGTH_BYTES);
  frame.set(image, LENGTH_BYTES + json.length);
  return frame;
}

/** Splits and checks a binary frame; the image is a view into `frame`, not a copy. */
export function parseImageFrame(frame: Uint8Array): ImageFrameParse {
  if (frame.length < LENGTH_BYTES) {
    return { ok: false, error: `binary frame of ${frame.length} bytes has no header length` };
  }
  if (frame.length > LENGTH_BYTES + MAX_IMAGE_HEADER_BYTES + MAX_IMAGE_FRAME_BYTES) {
    return { ok: false, error: `binary frame of ${frame.length} bytes is over the limit` };
  }
  const headerLength = new DataView(frame.buffer, frame.byteOffset, frame.length).getUint32(0);
  if (headerLength === 0 || headerLength > MAX_IMAGE_HEADER_BYTES) {
    return {
      ok: false,
      error: `binary frame header of ${headerLength} bytes (1..${MAX_IMAGE_HEADER_BYTES} allowed)`,
    };
  }
  if (LENGTH_BYTES + headerLength > frame.length) {
    return { ok: false, error: 'binary frame header runs past the end of the frame' };
  }
  let value: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(
      frame.subarray(LENGTH_BYTES, LENGTH_BYTES + headerLength),
    );
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'binary frame header is not UTF-8 JSON' };
  }
  const parsed = ImageAnswerHeader.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      error: `invalid binary frame header: ${formatZodIssues(parsed.error, { input: value })}`,
    };
  }
  const image = frame.subarray(LENGTH_BYTES + headerLength);
  if (image.length !== parsed.data.result.byte_length) {
    return {
      ok: false,
      error: `binary frame carries ${image.length} image bytes, its header says ${parsed.data.result.byte_length}`,
    };
  }
  return { ok: true, header: parsed.data, image };
}
