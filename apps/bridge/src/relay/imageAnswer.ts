// A take_screenshot answered with a binary frame (imageFrame.ts, already parsed): settled only
// when the window holds that call and the call is a take_screenshot, so a window cannot answer
// another window's call, nor any other tool, with an image. The image becomes the base64 the
// result schema checks like any text answer (CallRelay.settleCall).
import type { ImageAnswerHeader } from '@overlay-companion/protocol';
import type { CallRelay } from './callRelay.js';

/** Settles the call `header` names at `viewerId`; returns an error text to send back, if any. */
export function settleImageAnswer(
  calls: CallRelay,
  viewerId: string,
  header: ImageAnswerHeader,
  image: Uint8Array,
): string | undefined {
  const call = calls.pendingCall(viewerId, header.id);
  if (call?.name !== 'take_screenshot') {
    return call === undefined
      ? `tool_result_image for unknown or finished call ${header.id}`
      : `tool_result_image answers only take_screenshot, not ${call.name} (${header.id})`;
  }
  const data = Buffer.from(image.buffer, image.byteOffset, image.length).toString('base64');
  return calls.settleCall(viewerId, {
    type: 'tool_result',
    id: header.id,
    result: { ...header.result, data },
  });
}
