// A viewer window that never reads its messages (a hung tab, or a hostile page with any grant on
// the desktop) cannot make the bridge hold what it sends without bound: past
// VIEWER_MAX_BUFFERED_BYTES queued for it, the bridge drops that window, while the windows that
// read keep every message. Real bridge, a SCRIPTED VIEWER as the control window, a raw socket
// that upgrades /ws/viewer and then never reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { escapedOverlays } from '../relay/testing/escapedOverlays.js';
import { SilentSocket } from '../relay/testing/silentSocket.js';
import { VIEWER_MAX_BUFFERED_BYTES } from '../relay/viewerSocket.js';

let bridge: TestBridge;
let control: ScriptedViewer;
let reader: ScriptedViewer;

beforeAll(async () => {
  bridge = await startTestBridge();
  control = await ScriptedViewer.connect(bridge);
  reader = await ScriptedViewer.connect(bridge);
});

afterAll(async () => {
  await control?.close();
  await reader?.close();
  await bridge?.close();
});

/** About 4.6 MB once encoded. */
const bigStore = (prefix: string) => escapedOverlays(3_800, prefix);

describe('a viewer window that does not read', () => {
  it('is dropped once more than the bound waits for it; the windows that read get everything', async () => {
    const ticket = await bridge.ticket();
    const silent = await SilentSocket.open(
      bridge.url,
      `/ws/viewer?ticket=${encodeURIComponent(ticket)}`,
      { Origin: new URL(bridge.url).origin },
    );
    await waitUntil(() => bridge.adminPlane.hub.size === 3);
    // Ten stores of ~4.6 MB each: about 46 MB for the silent window, over the 32 MiB bound.
    const rounds = Math.ceil((VIEWER_MAX_BUFFERED_BYTES * 1.4) / 4_600_000);
    for (let round = 0; round < rounds; round += 1) {
      control.send({ type: 'sync_state', seq: 100 + round, overlays: bigStore(`r${round}`) });
      await waitUntil(
        () => reader.received.some((m) => m.type === 'sync_state' && m.seq === 100 + round),
        20_000,
      );
    }
    // The bridge let the silent window go; the one that reads is still there.
    await waitUntil(() => bridge.adminPlane.hub.size === 2, 10_000);
    const outcome = await silent.readAll(5_000);
    expect(outcome.ended).toBe(true);
    expect(reader.closed).toBe(false);
  }, 120_000);
});
