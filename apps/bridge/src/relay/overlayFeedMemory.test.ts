// /ws/overlays under the reported memory attack, against a real bridge running in this process
// (so this process's memory is the bridge's): a token holder fills the store with overlays whose
// labels JSON escapes six-fold and opens 200 feed sockets that never read. Before the feed was
// bounded this took the bridge from 371 MiB to 5,713 MiB. The RSS and the live heap plus buffers
// (after a full GC) are measured before and after, and each socket's fate is read at the end.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MAX_OVERLAYS, toFeedOverlay, type Overlay } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, TOKEN, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { createToken } from '../perimeter/testing/people.js';
import {
  FEED_CLOSE,
  FEED_MAX_BUFFERED_BYTES,
  FEED_MAX_SYNC_BYTES,
  FEED_SOCKETS_PER_CREDENTIAL,
  FEED_SOCKETS_PER_PERSON,
} from '../limits/feedLimits.js';
import { SilentSocket, type SilentSocketOutcome } from './testing/silentSocket.js';
import { escapedOverlays } from './testing/escapedOverlays.js';

const SOCKETS = 200;
const MIB = 1024 * 1024;

// A full collection when measuring, so garbage is not counted as held.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function memory(): { rss: number; held: number } {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, held: m.heapUsed + m.arrayBuffers };
}

const syncBytes = (list: Overlay[]): number =>
  Buffer.byteLength(
    JSON.stringify({ type: 'sync_state', seq: 0, overlays: list.map(toFeedOverlay) }),
  );

describe('/ws/overlays memory with 200 feeds that never read', () => {
  let bridge: TestBridge;
  let control: ScriptedViewer;
  let seq = 100;

  async function load(list: Overlay[]): Promise<void> {
    const at = ++seq;
    control.send({ type: 'sync_state', seq: at, overlays: list });
    await waitUntil(() => bridge.adminPlane.hub.overlayFeed.syncMessage().seq === at, 20_000);
  }

  /** Opens SOCKETS silent feeds, spread over `secrets` in turn; all upgraded before it returns. */
  async function openSilent(secrets: string[]): Promise<SilentSocket[]> {
    return Promise.all(
      Array.from({ length: SOCKETS }, (_, i) =>
        SilentSocket.open(bridge.url, '/ws/overlays', {
          Authorization: `Bearer ${secrets[i % secrets.length]}`,
        }),
      ),
    );
  }

  function report(
    name: string,
    before: { rss: number; held: number },
  ): { rss: number; held: number } {
    const after = memory();
    const grown = { rss: after.rss - before.rss, held: after.held - before.held };
    console.log(
      `${name}: RSS ${(before.rss / MIB).toFixed(0)} → ${(after.rss / MIB).toFixed(0)} MiB (+${(grown.rss / MIB).toFixed(1)}), heap+buffers +${(grown.held / MIB).toFixed(1)} MiB`,
    );
    return grown;
  }

  const closes = (outcomes: SilentSocketOutcome[], code: number) =>
    outcomes.filter((o) => o.close?.code === code).length;

  beforeAll(async () => {
    bridge = await startTestBridge();
    control = await ScriptedViewer.connect(bridge);
  });
  afterAll(async () => {
    await control.close();
    await bridge.close();
  });

  it('the reported attack (one token, 10,000 escaped labels, a 15 MiB sync): the bridge grows by less than 64 MiB', async () => {
    const store = escapedOverlays(MAX_OVERLAYS, 'ov_attack');
    expect(syncBytes(store)).toBeGreaterThan(13 * MIB);
    await load(store);
    const before = memory();
    const sockets = await openSilent([TOKEN]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const grown = report('one token, 15 MiB store', before);
    expect(grown.rss).toBeLessThan(64 * MIB);
    expect(grown.held).toBeLessThan(64 * MIB);

    // Each feed was closed with a reason: the token's first few because the sync is too large,
    // the rest because the token had no seat left (the first few still hold theirs until their
    // close handshake, which a socket that never reads never finishes).
    const outcomes = await Promise.all(sockets.map((s) => s.readAll(5_000)));
    expect(outcomes.every((o) => o.textFrames === 0)).toBe(true);
    expect(closes(outcomes, FEED_CLOSE.syncTooLarge)).toBe(FEED_SOCKETS_PER_CREDENTIAL);
    expect(closes(outcomes, FEED_CLOSE.tooManyFeeds)).toBe(SOCKETS - FEED_SOCKETS_PER_CREDENTIAL);
  }, 120_000);

  it(`the worst the limits allow (50 tokens, the largest sync allowed, 3 more while nobody reads): the bridge grows by less than ${FEED_SOCKETS_PER_PERSON} × ${FEED_MAX_BUFFERED_BYTES / MIB} MiB`, async () => {
    const perOverlay =
      syncBytes(escapedOverlays(2, 'ov_max')) - syncBytes(escapedOverlays(1, 'ov_max'));
    const count = Math.floor((FEED_MAX_SYNC_BYTES - syncBytes([])) / perOverlay) - 50;
    const largest = (prefix: string) => escapedOverlays(count, prefix);
    expect(syncBytes(largest('ov_maxa'))).toBeLessThanOrEqual(FEED_MAX_SYNC_BYTES);
    expect(syncBytes(largest('ov_maxa'))).toBeGreaterThan(FEED_MAX_SYNC_BYTES - MIB);
    await load(largest('ov_maxa'));
    const tokens = await Promise.all(
      Array.from({ length: 50 }, (_, i) => createToken(bridge.session, `silent feed ${i}`)),
    );
    const before = memory();
    const sockets = await openSilent(tokens.map((t) => t.secret));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const bound = FEED_SOCKETS_PER_PERSON * FEED_MAX_BUFFERED_BYTES;
    const opened = report('50 tokens, 10 MiB store, 200 silent feeds', before);
    expect(opened.rss).toBeLessThan(bound);
    expect(opened.held).toBeLessThan(bound);
    // The store changes three times while nobody reads: each seat is offered three more syncs.
    for (const prefix of ['ov_maxb', 'ov_maxc', 'ov_maxd']) await load(largest(prefix));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const grown = report('… then 3 more syncs', before);
    expect(grown.rss).toBeLessThan(bound);
    expect(grown.held).toBeLessThan(bound);

    const outcomes = await Promise.all(sockets.map((s) => s.readAll(5_000)));
    const seated = outcomes.filter((o) => o.close === undefined);
    expect(seated).toHaveLength(FEED_SOCKETS_PER_PERSON);
    // Each seated feed was dropped (no close frame: it would queue behind what it does not read)
    // once it held its allowance, before it had been sent all four syncs; what reached it is only
    // what the kernel had taken.
    expect(seated.every((o) => o.ended && o.textFrames < 4)).toBe(true);
    expect(closes(outcomes, FEED_CLOSE.tooManyFeeds)).toBe(SOCKETS - FEED_SOCKETS_PER_PERSON);
  }, 180_000);
});
