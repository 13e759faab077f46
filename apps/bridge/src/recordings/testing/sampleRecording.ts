// Test support: a finished 64×48 recording of a desktop — red, then green a second later, with
// the given events on its track — written by the real RecordingWriter and listed in the bridge's
// store as the recorder would list it, so route and attack tests start from the same recording;
// and recordings of a chosen size on disk, for the retention tests.
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { RecordingWriter, type RecordingEventInput } from '@overlay-companion/recording';
import sharp from 'sharp';
import type { TestBridge } from '../../mcp/testing/fixtures.js';
import type { Store } from '../../store/types.js';

export async function writeSampleRecording(
  bridge: TestBridge,
  desktopId: string,
  t0: number,
  events: readonly RecordingEventInput[] = [],
): Promise<string> {
  const writer = await RecordingWriter.create({ dir: bridge.recordings.dir });
  const fill = (t: number, rgb: [number, number, number]) => {
    writer.feed({ opcode: 'rect', args: ['0', '0', '0', '64', '48'] }, t);
    writer.feed({ opcode: 'cfill', args: ['14', '0', ...rgb.map(String), '255'] }, t);
    writer.feed({ opcode: 'sync', args: [String(t)] }, t);
  };
  writer.feed({ opcode: 'size', args: ['0', '64', '48'] }, t0);
  fill(t0, [255, 0, 0]);
  fill(t0 + 1_000, [0, 255, 0]);
  for (const event of events) writer.event(event);
  const summary = await writer.close();
  const { store } = bridge.access;
  const desktop = await store.desktops.byId(desktopId);
  await store.recordings.add({
    id: summary.id,
    desktopId,
    ownerId: desktop?.ownerId ?? null,
    startedAt: t0,
  });
  await store.recordings.update(summary.id, {
    endedAt: summary.end,
    bytes: summary.bytes,
    gaps: [],
  });
  return summary.id;
}

/**
 * A finished 320×240 recording six hours long that ended an hour ago: red at its start, then
 * nothing changes (a video export of it renders a frame every tenth of a second, which takes far
 * longer than a test runs: it holds its export slot until stopped).
 */
export async function writeSixHourRecording(
  bridge: TestBridge,
  desktopId: string,
): Promise<string> {
  const HOUR = 3_600_000;
  const t0 = Date.now() - 7 * HOUR;
  const writer = await RecordingWriter.create({ dir: bridge.recordings.dir });
  writer.feed({ opcode: 'size', args: ['0', '320', '240'] }, t0);
  writer.feed({ opcode: 'rect', args: ['0', '0', '0', '320', '240'] }, t0);
  writer.feed({ opcode: 'cfill', args: ['14', '0', '255', '0', '0', '255'] }, t0);
  writer.feed({ opcode: 'sync', args: [String(t0)] }, t0);
  writer.feed({ opcode: 'sync', args: [String(t0 + 6 * HOUR)] }, t0 + 6 * HOUR);
  const summary = await writer.close();
  const { store } = bridge.access;
  const owner = (await store.desktops.byId(desktopId))?.ownerId ?? null;
  await store.recordings.add({ id: summary.id, desktopId, ownerId: owner, startedAt: t0 });
  await store.recordings.update(summary.id, { endedAt: summary.end, bytes: summary.bytes });
  return summary.id;
}

/**
 * A finished recording of about `approxBytes` on disk in all (picture and keyframe: random
 * pixels, which do not compress), started at `t0` and a minute long, listed in `store` as the
 * recorder lists one (its size in all measured from the files). Returns its id and size.
 */
export async function writeNoiseRecording(
  store: Store,
  dir: string,
  recording: { desktopId: string; ownerId: string | null; t0: number; approxBytes: number },
): Promise<{ id: string; storedBytes: number }> {
  const { desktopId, ownerId, t0, approxBytes } = recording;
  // The picture goes in once and again as the keyframe: half the size each.
  const side = Math.max(8, Math.round(Math.sqrt(approxBytes / 2 / 3)));
  const raw = randomBytes(side * side * 3);
  const png = await sharp(raw, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
  const writer = await RecordingWriter.create({ dir, keyframeIntervalMs: 3_600_000 });
  writer.feed({ opcode: 'size', args: ['0', String(side), String(side)] }, t0);
  writer.feed({ opcode: 'img', args: ['1', '14', '0', 'image/png', '0', '0'] }, t0);
  for (let o = 0; o < png.length; o += 6048)
    writer.feed({ opcode: 'blob', args: ['1', png.subarray(o, o + 6048).toString('base64')] }, t0);
  writer.feed({ opcode: 'end', args: ['1'] }, t0);
  writer.feed({ opcode: 'sync', args: [String(t0)] }, t0);
  writer.feed({ opcode: 'sync', args: [String(t0 + 60_000)] }, t0 + 60_000);
  const summary = await writer.close();
  let storedBytes = 0;
  for (const path of Object.values(summary.paths)) storedBytes += (await stat(path)).size;
  await store.recordings.add({ id: summary.id, desktopId, ownerId, startedAt: t0 });
  await store.recordings.update(summary.id, {
    endedAt: summary.end,
    bytes: summary.bytes,
    gaps: [],
    storedBytes,
  });
  return { id: summary.id, storedBytes };
}
