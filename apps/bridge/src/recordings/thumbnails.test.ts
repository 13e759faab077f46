// The AI timeline's thumbnails (the web's AiActionCards ask GET /api/recordings/<id>/frame at
// each action's moment, 240 wide) hold the privacy masks: a card of an action taken while a mask
// hid part of the screen shows that part black, not what was under it, also when the masked
// content was drawn while the mask was in force — and the rest of the screen as it was. Real
// bridge, real sign-in, the real RecordingWriter.
import { RecordingWriter } from '@overlay-companion/recording';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';

const W = 64;
const H = 48;
const MASK = { x: 0, y: 0, width: 32, height: 48 };
const SECRET: [number, number, number] = [0, 0, 255];
const PLAIN: [number, number, number] = [0, 255, 0];

describe('timeline thumbnails', () => {
  let bridge: TestBridge;
  let recordingId: string;
  const t0 = Date.now() - 20_000;

  beforeAll(async () => {
    bridge = await startTestBridge();
    const desktopId = (await bridge.desktopControl.directory.cliDesktopId()) ?? '';
    const writer = await RecordingWriter.create({ dir: bridge.recordings.dir });
    const fill = (t: number, x: number, width: number, rgb: [number, number, number]) => {
      writer.feed({ opcode: 'rect', args: ['0', String(x), '0', String(width), String(H)] }, t);
      writer.feed({ opcode: 'cfill', args: ['14', '0', ...rgb.map(String), '255'] }, t);
      writer.feed({ opcode: 'sync', args: [String(t)] }, t);
    };
    writer.feed({ opcode: 'size', args: ['0', String(W), String(H)] }, t0);
    fill(t0, 0, W, SECRET); // before any mask: the secret is on the left half
    writer.setMasks([MASK], t0 + 1_000);
    fill(t0 + 2_000, 32, 32, PLAIN); // right half plain, under no mask
    fill(t0 + 3_000, 0, 32, [...SECRET]); // the secret drawn again, under the mask
    writer.event({
      t: t0 + 3_500,
      kind: 'ai.action',
      id: 'a1',
      tool: 'click_at',
      args: { x: 10, y: 10 },
      decision: 'allowed',
      point: { x: 10, y: 10 },
    });
    writer.feed({ opcode: 'sync', args: [String(t0 + 5_000)] }, t0 + 5_000);
    const summary = await writer.close();
    const { store } = bridge.access;
    await store.recordings.add({ id: summary.id, desktopId, ownerId: null, startedAt: t0 });
    await store.recordings.update(summary.id, {
      endedAt: summary.end,
      bytes: summary.bytes,
      gaps: [],
    });
    recordingId = summary.id;
  });

  afterAll(async () => {
    await bridge?.close();
  });

  const pixels = async (t: number) => {
    const res = await bridge.session.request(
      `/api/recordings/${recordingId}/frame?t=${t}&width=240`,
    );
    expect(res.status).toBe(200);
    const { data, info } = await sharp(Buffer.from(await res.arrayBuffer()))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3),
    ];
    return { info, at };
  };

  it('shows the masked area black at an action taken under the mask, the rest as it was', async () => {
    const { info, at } = await pixels(t0 + 3_500);
    expect(info.width).toBe(W); // never scaled up past the desktop
    for (let y = 0; y < H; y += 4) {
      for (let x = 0; x < W; x += 4) {
        const inMask = x < MASK.x + MASK.width;
        expect(at(x, y), `${x},${y}`).toEqual(inMask ? [0, 0, 0] : PLAIN);
      }
    }
  });

  it('shows what was there before the mask came (the recording holds it, and so may the card)', async () => {
    const { at } = await pixels(t0 + 500);
    expect(at(10, 10)).toEqual(SECRET);
  });
});
