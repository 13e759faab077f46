// The one binary frame on /ws/viewer (imageFrame.ts), against a real bridge: a take_screenshot
// answered with raw image bytes settles the call with exactly those bytes as base64, and the
// frame is attacked — answers to calls the window was not asked (made up, finished, another
// window's, another tool's), wrong lengths, a header that is not JSON or not the schema, frames
// too short or too large — none settles or confuses a call, none takes the bridge down, each is
// answered with an error, and a window that keeps sending them is closed. SCRIPTED VIEWERS.
import {
  encodeImageFrame,
  toolDefinitions,
  type ImageAnswerHeader,
  type TakeScreenshotResult,
  type ToolCallMessage,
} from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TINY_PNG_BASE64,
  screenshotResult,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';

const ARGS = toolDefinitions.take_screenshot.input.parse({});
const png = Buffer.from(TINY_PNG_BASE64, 'base64');

function header(id: string, byteLength: number): ImageAnswerHeader {
  const { data: _data, ...meta } = screenshotResult();
  return {
    type: 'tool_result_image',
    id,
    result: { ...(meta as TakeScreenshotResult), byte_length: byteLength },
  };
}

/** A frame whose 4-byte length and header bytes are given as they are, valid or not. */
function rawFrame(headerBytes: Uint8Array, image: Uint8Array, length = headerBytes.length) {
  const frame = new Uint8Array(4 + headerBytes.length + image.length);
  new DataView(frame.buffer).setUint32(0, length);
  frame.set(headerBytes, 4);
  frame.set(image, 4 + headerBytes.length);
  return frame;
}

function errors(viewer: ScriptedViewer): string[] {
  return viewer.received
    .filter((m) => m.type === 'error')
    .map((m) => (m as { message: string }).message);
}

describe('binary screenshot answers on the viewer socket', () => {
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  /** Starts a take_screenshot at the control viewer and returns its promise and its call. */
  async function screenshotCall(viewer: ScriptedViewer) {
    const before = viewer.toolCalls('take_screenshot').length;
    const result = bridge.adminPlane.hub.call('take_screenshot', ARGS, 'allow', {
      timeoutMs: 5_000,
    });
    await waitUntil(() => viewer.toolCalls('take_screenshot').length > before);
    const call = viewer.toolCalls('take_screenshot')[before] as ToolCallMessage;
    return { result, call };
  }

  it('settles a take_screenshot with the raw image bytes as base64', async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    const { result, call } = await screenshotCall(viewer);
    viewer.sendBinary(encodeImageFrame(header(call.id, png.length), png));
    const shot = await result;
    expect(shot).toEqual(screenshotResult());
    expect(errors(viewer)).toEqual([]);
    await viewer.close();
  });

  it('refuses malformed, oversize and unsolicited frames, and the call still settles after', async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    viewer.on('clear_overlays', 'ignore');
    const { result, call } = await screenshotCall(viewer);
    // Another tool's call waiting at the same window: an image must not answer it.
    const clearing = bridge.adminPlane.hub.call('clear_overlays', {}, 'allow', {
      timeoutMs: 5_000,
    });
    await waitUntil(() => viewer.toolCalls('clear_overlays').length === 1);
    const clear = viewer.toolCalls('clear_overlays')[0] as ToolCallMessage;
    const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    const attacks: [string, Uint8Array, RegExp][] = [
      ['too short for a length', new Uint8Array([0, 0]), /no header length/],
      ['zero-length header', rawFrame(new Uint8Array(), png), /header of 0 bytes/],
      [
        'header length over the limit',
        rawFrame(json(header(call.id, png.length)), png, 1 << 30),
        /header of 1073741824 bytes/,
      ],
      [
        'header longer than the frame',
        rawFrame(json(header(call.id, 10)), new Uint8Array(), 9_000),
        /runs past the end/,
      ],
      ['header not JSON', rawFrame(new TextEncoder().encode('{"type":'), png), /not UTF-8 JSON/],
      ['header not UTF-8', rawFrame(new Uint8Array([0xff, 0xfe, 0xfd]), png), /not UTF-8 JSON/],
      [
        'header of the wrong kind',
        rawFrame(json({ ...header(call.id, png.length), type: 'tool_result' }), png),
        /invalid binary frame header: type/,
      ],
      [
        'header with extra fields',
        rawFrame(json({ ...header(call.id, png.length), data: 'x' }), png),
        /invalid binary frame header/,
      ],
      [
        'fewer image bytes than said',
        encodeImageFrame(header(call.id, png.length + 1), png),
        /carries \d+ image bytes, its header says/,
      ],
      [
        'more image bytes than said',
        encodeImageFrame(header(call.id, png.length - 1), png),
        /carries \d+ image bytes, its header says/,
      ],
      [
        'a call never made',
        encodeImageFrame(header('call_made_up_1', png.length), png),
        /unknown or finished call call_made_up_1/,
      ],
      [
        'a call of another tool',
        encodeImageFrame(header(clear.id, png.length), png),
        /answers only take_screenshot, not clear_overlays/,
      ],
    ];
    for (const [what, frame, expected] of attacks) {
      const before = errors(viewer).length;
      viewer.sendBinary(frame);
      await waitUntil(() => errors(viewer).length > before);
      expect(errors(viewer)[before], what).toMatch(expected);
    }
    expect(viewer.closed).toBe(false);
    // Neither call was settled or failed by any of it.
    expect(bridge.adminPlane.hub.pendingCalls).toBe(2);
    viewer.send({ type: 'tool_result', id: clear.id, result: { cleared: 0 } });
    expect(await clearing).toEqual({ cleared: 0 });
    viewer.sendBinary(encodeImageFrame(header(call.id, png.length), png));
    expect((await result).data).toBe(Buffer.from(png).toString('base64'));
    // Now finished: the same answer again is a late one, refused.
    const before = errors(viewer).length;
    viewer.sendBinary(encodeImageFrame(header(call.id, png.length), png));
    await waitUntil(() => errors(viewer).length > before);
    expect(errors(viewer)[before]).toMatch(/unknown or finished call/);
    await viewer.close();
  });

  it("never lets one window answer another window's screenshot", async () => {
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    expect(mirror.hello.role).toBe('mirror');
    const { result, call } = await screenshotCall(control);
    mirror.sendBinary(encodeImageFrame(header(call.id, png.length), png));
    await waitUntil(() => errors(mirror).length === 1);
    expect(errors(mirror)[0]).toMatch(/unknown or finished call/);
    control.sendBinary(encodeImageFrame(header(call.id, png.length), png));
    expect((await result).byte_length).toBe(png.length);
    await mirror.close();
    await control.close();
  });

  it('closes a window that keeps sending bad binary frames, and the bridge carries on', async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    for (let i = 0; i < 40; i += 1) viewer.sendBinary(new Uint8Array([1, 2, 3]));
    await waitUntil(() => viewer.closed);
    expect(errors(viewer).length).toBeLessThanOrEqual(21);
    const next = await ScriptedViewer.connect(bridge);
    const { result, call } = await screenshotCall(next);
    next.sendBinary(encodeImageFrame(header(call.id, png.length), png));
    expect((await result).width).toBe(1);
    await next.close();
  });

  it('drops a frame larger than the socket allows without taking the bridge down', async () => {
    const viewer = await ScriptedViewer.connect(bridge);
    viewer.sendBinary(new Uint8Array(17 * 1024 * 1024 + 1));
    // ws closes the socket itself (1009, message too big) before the bridge reads anything.
    await waitUntil(() => viewer.closed, 10_000);
    const next = await ScriptedViewer.connect(bridge);
    const { result, call } = await screenshotCall(next);
    next.sendBinary(encodeImageFrame(header(call.id, png.length), png));
    expect((await result).height).toBe(1);
    await next.close();
  });
});
