// Test support: a finished 64×48 recording of a desktop — red, then green a second later, with
// the given events on its track — written by the real RecordingWriter and listed in the bridge's
// store as the recorder would list it, so route and attack tests start from the same recording.
import { RecordingWriter, type RecordingEventInput } from '@overlay-companion/recording';
import type { TestBridge } from '../../mcp/testing/fixtures.js';

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
