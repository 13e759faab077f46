// The site's NATS stopped and started again while the AI's calls flow, for real (a token-protected
// nats-server and a PostgreSQL on loopback, three bridges in this process): the person's control
// window on bridge 1, a mirror on bridge 3, one AI on bridge 2 (its calls cross the bus) and one
// on bridge 1 (its calls stay there). NATS stays away longer than the lease TTL, so the lease
// expires in the bucket. While NATS is away, the AI's calls on bridge 2 are refused at once
// (no wait for a lease or a holder) with viewer_unavailable naming the site's bus and a
// retry_after_ms, none reaches the window, the AI on bridge 1 goes on, the mirror does not
// become a second control window, and /readyz says the bus is away. The person lowers the mode to passive meanwhile (bridge 2 cannot hear it): once
// NATS is back, bridge 2's calls reach the window's bridge, which refuses them by the passive
// mode — nothing reaches the window. Then the site is whole again: bridge 1 holds the lease
// again (the mirror-only bridge 3 never takes it: the control window stays where it was, on
// bridge 1, the only control window of the site), bridge 2 reads the mode again, a raise approved in the window lets the calls through,
// the overlays drawn before and during the outage are on every bridge and reach windows opened
// afterwards on bridges 1 and 3, and a token revoked after
// the restart refuses the next call on each bridge. Times printed (bus away → calls refused,
// back → calls answered, back → site whole, how long each refusal took); none is asserted.
import { API, type Overlay } from '@overlay-companion/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readyz, readyzBecomes } from '../health/testing/readyz.js';
import { NOT_READY } from '../health/readiness.js';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer, type Received } from '../mcp/testing/scriptedViewer.js';
import { argX } from './testing/relayedArgs.js';
import { startSiteServers } from './testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';
import { overlay } from './testing/overlays.js';
import { leaseKey } from './controlLeases.js';
import { ControlLease } from './messages.js';

const { nats, postgres, missing } = await startSiteServers();

/**
 * How long NATS stays away, in lease TTLs: well past one, so the lease expires in the bucket and
 * each bridge's lease writes made meanwhile have timed out when it comes back.
 */
const OUTAGE_TTLS = 4;

/** Between one call of a flow and the next: two flows stay well inside the token's rate limit. */
const CALL_GAP_MS = 100;

interface Call {
  x: number;
  startedAt: number;
  endedAt: number;
  ok: boolean;
  kind?: string;
  message?: string;
  retry_after_ms?: number;
}

/** Calls click_at one after the other (x counting up) until stopped, each one recorded. */
function flow(client: Client, firstX: number) {
  const calls: Call[] = [];
  let running = true;
  const done = (async () => {
    for (let x = firstX; running; x += 1) {
      const startedAt = performance.now();
      const result = await callTool(client, 'click_at', { x, y: 5 }).catch((err: unknown) => ({
        isError: true,
        structuredContent: { error: { kind: 'thrown', message: String(err) } },
        content: [],
      }));
      const call: Call = { x, startedAt, endedAt: performance.now(), ok: result.isError !== true };
      if (!call.ok) Object.assign(call, errorOf(result));
      calls.push(call);
      await new Promise((resolve) => setTimeout(resolve, CALL_GAP_MS));
    }
  })();
  return {
    calls,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

const isControlHello = (m: Received): boolean => m.type === 'hello' && m.role === 'control';

describe.runIf(missing === undefined)(
  'NATS stopped and started under a site while calls flow',
  () => {
    let one: SiteBridge;
    let two: SiteBridge;
    let three: SiteBridge;

    beforeAll(async () => {
      const databaseUrl = await postgres.newDatabase();
      const site = { servers: [nats.address], token: nats.token };
      // Bridge 3 (the mirror's) starts first: its lease refreshes come a moment before bridge 1's,
      // so after the outage it is usually first to find the expired lease free (the race that
      // moved the control window by itself).
      three = await startSiteBridge({
        name: 'n three',
        databaseUrl,
        site,
        initialMode: 'autopilot',
      });
      one = await startSiteBridge({ name: 'n one', databaseUrl, site, initialMode: 'autopilot' });
      two = await startSiteBridge({ name: 'n two', databaseUrl, site, initialMode: 'autopilot' });
    }, 60_000);
    afterAll(async () => {
      for (const bridge of [three, two, one]) await bridge?.close();
    }, 60_000);

    const heldElsewhere = (bridge: SiteBridge): boolean =>
      bridge.site!.remote.controlElsewhere(bridge.desktopId);

    test('calls fail closed while the bus is away, and the site is whole again after', async () => {
      const control = await ScriptedViewer.connect(one);
      control.on('click_at', { result: { success: true, was_confirmed: false } });
      expect(control.hello.role).toBe('control');
      await waitUntil(() => heldElsewhere(two) && heldElsewhere(three), 5000);
      const mirror = await ScriptedViewer.connect(three);
      expect(mirror.hello.role).toBe('mirror');
      control.send({ type: 'overlay_created', overlay: overlay('ov_before_1', 10), seq: 1 });
      control.send({ type: 'overlay_created', overlay: overlay('ov_before_2', 20), seq: 2 });
      const plane2 = await two.desktopControl.planes.get(two.desktopId);
      const plane3 = await three.desktopControl.planes.get(three.desktopId);
      await waitUntil(() => plane3?.hub.overlayFeed.syncMessage().overlays.length === 2, 5000);

      const remoteAi = await connectClient(two, { token: TOKEN });
      const localAi = await connectClient(one, { token: TOKEN });
      const remote = flow(remoteAi.client, 1_000);
      const local = flow(localAi.client, 3_000);
      await waitUntil(() => remote.calls.filter((c) => c.ok).length >= 5, 10_000);
      expect(remote.calls.every((c) => c.ok)).toBe(true);

      // NATS goes away.
      const awayAt = performance.now();
      await nats.outage.begin();
      await waitUntil(() => two.site!.bus.awaySince() !== undefined, 15_000);
      // From when bridge 2 knows the bus is away, each of its calls across bridges is refused.
      const knownAwayAt = performance.now();
      await waitUntil(() => remote.calls.some((c) => !c.ok && c.startedAt > awayAt), 30_000);
      const refusedAfter =
        remote.calls.find((c) => !c.ok && c.startedAt > awayAt)!.endedAt - awayAt;
      // /readyz of bridge 2 says so.
      const notReady = await readyzBecomes(two, (a) => a.text.includes(NOT_READY.siteBus));
      expect(notReady.status).toBe(503);
      // The person lowers the mode in the window on bridge 1 (bridge 2 does not hear it), and
      // draws an overlay.
      const plane1 = await one.desktopControl.planes.get(one.desktopId);
      control.send({ type: 'mode_set', mode: 'passive' });
      await waitUntil(() => plane1?.mode.mode === 'passive', 2000);
      const passiveAt = performance.now();
      control.send({ type: 'overlay_created', overlay: overlay('ov_during', 30), seq: 3 });
      // A few more refusals, and the local AI's answers meanwhile.
      await waitUntil(
        () => remote.calls.filter((c) => !c.ok && c.startedAt > awayAt).length >= 2,
        30_000,
      );
      expect(plane2?.mode.mode).toBe('autopilot');
      // Away longer than the lease TTL: the lease expires in the bucket (the case where a
      // mirror-only bridge could take it before bridge 1 is back).
      const ttlMs = one.site!.bus.leaseTtlMs;
      await waitUntil(
        () => performance.now() - awayAt > OUTAGE_TTLS * ttlMs,
        OUTAGE_TTLS * ttlMs + 5_000,
      );

      // NATS back.
      await nats.outage.end();
      const backAt = performance.now();
      // The mirror stayed a mirror while NATS was away: one control window in the site.
      expect(mirror.received.some(isControlHello)).toBe(false);
      mirror.on('click_at', { result: { success: true, was_confirmed: false } });
      // The local AI went on while NATS was away: answered by its own bridge (done, or refused by
      // the passive mode once it was set), never refused for want of the bus.
      const localAway = local.calls.filter((c) => c.startedAt > awayAt && c.endedAt < backAt);
      expect(localAway.filter((c) => c.ok && c.startedAt < passiveAt).length).toBeGreaterThan(0);
      expect(localAway.filter((c) => c.kind === 'viewer_unavailable')).toEqual([]);
      // The first call of bridge 2 answered by the window's bridge: refused by the passive mode.
      await waitUntil(
        () =>
          remote.calls.some(
            (c) => c.startedAt > backAt && !c.ok && c.kind !== 'viewer_unavailable',
          ),
        30_000,
      );
      const answeredAfter =
        remote.calls.find((c) => c.startedAt > backAt && c.kind !== 'viewer_unavailable')!.endedAt -
        backAt;
      await waitUntil(() => plane2?.mode.mode === 'passive', 15_000);
      // The lease is held again by bridge 1, whose window stayed the control window all along:
      // the mirror-only bridge 3 did not take it while bridge 1 came back. (Read in the bucket,
      // after long enough for every bridge to have tried to take it: the grace where only its
      // holder may, and a refresh after.)
      await new Promise((resolve) => setTimeout(resolve, 2 * ttlMs));
      const leaseHolder = async (): Promise<string | undefined> => {
        const entry = await (await two.site!.bus.leases()).get(leaseKey(two.desktopId));
        if (entry === null || entry.operation !== 'PUT') return undefined;
        const lease = two.site!.bus.openValue(ControlLease, entry, ttlMs);
        return lease.ok ? lease.message.bridge : undefined;
      };
      await waitUntil(async () => (await leaseHolder()) !== undefined, 15_000);
      expect(await leaseHolder()).toBe(one.site!.bus.bridgeId);
      await waitUntil(
        async () =>
          (await two.site!.remote.holder(two.desktopId))?.bridge === one.site!.bus.bridgeId &&
          heldElsewhere(three),
        15_000,
      );
      expect(control.hello.role).toBe('control');
      expect(mirror.hello.role).toBe('mirror');
      expect(mirror.received.some(isControlHello)).toBe(false);
      expect(heldElsewhere(one)).toBe(false);
      expect((await readyz(two)).text).not.toContain(NOT_READY.siteBus);
      const wholeAfter = performance.now() - backAt;

      // The person raises the mode again, approved in the control window: the calls go through.
      control.send({ type: 'mode_set', mode: 'autopilot' });
      const asked = await control.waitFor((m) => m.type === 'approval_request', 5000);
      control.send({
        type: 'approval',
        request_id: (asked as { request_id: string }).request_id,
        approved: true,
      });
      const raisedAt = performance.now();
      await waitUntil(() => remote.calls.some((c) => c.ok && c.startedAt > raisedAt), 15_000);
      await remote.stop();
      await local.stop();

      // What the AI on bridge 2 saw while the bus was away, and after.
      const away = remote.calls.filter((c) => c.startedAt > awayAt && c.endedAt < backAt);
      const refused = away.filter((c) => !c.ok);
      const kinds = new Set(refused.map((c) => `${c.kind ?? ''}: ${c.message ?? ''}`));
      for (const call of refused) {
        expect(call.kind).toBe('viewer_unavailable');
        expect(call.message).toMatch(/nothing was sent to the desktop|went away|no viewer|window/i);
      }
      // Once bridge 2 knew the bus was away: refused at once, naming the site's bus — not "no
      // viewer is connected" after waiting for a lease and a holder — with a retry_after_ms.
      const refusedKnowing = refused.filter((c) => c.startedAt > knownAwayAt);
      expect(refusedKnowing.length).toBeGreaterThan(0);
      for (const call of refusedKnowing) {
        expect(call.message).toMatch(/lost the site's bus \(NATS\)/);
        expect(call.message).toMatch(/nothing was sent to the desktop/);
        expect(call.message).not.toMatch(/No viewer is connected/);
        expect(call.retry_after_ms).toBeGreaterThan(0);
      }
      const refusalMs = refusedKnowing.map((c) => c.endedAt - c.startedAt).sort((a, b) => a - b);
      // Nothing refused reached the window, and nothing asked after the mode went passive did
      // until it was raised again (by bridge 1's own mode, whatever bridge 2 believed).
      const reached = new Set(
        [control, mirror].flatMap((w) => w.toolCalls('click_at').map((c) => argX(c))),
      );
      // (Not the call in flight when NATS went: the AI was told it may or may not have happened.)
      for (const call of remote.calls.filter(
        (c) => !c.ok && !/may or may not/.test(c.message ?? ''),
      ))
        expect(reached.has(call.x), `refused call ${String(call.x)} reached the window`).toBe(
          false,
        );
      for (const call of remote.calls.filter(
        (c) => c.startedAt > passiveAt && c.endedAt < raisedAt,
      ))
        expect(reached.has(call.x), `call ${String(call.x)} in passive reached the window`).toBe(
          false,
        );

      // The overlays: every bridge has the ones drawn before the outage, the one drawn while NATS
      // was away is on bridge 1, and windows opened afterwards — on bridge 1, where the control
      // window stayed, and on bridge 3 (from bridge 1) — get all three, as mirrors.
      const ids = (plane: typeof plane3): string[] =>
        plane?.hub.overlayFeed.syncMessage().overlays.map((o) => o.overlay_id) ?? [];
      expect(ids(plane1)).toEqual(['ov_before_1', 'ov_before_2', 'ov_during']);
      expect(ids(plane3)).toEqual(expect.arrayContaining(['ov_before_1', 'ov_before_2']));
      const lateOnOne = await ScriptedViewer.connect(one);
      const lateOnThree = await ScriptedViewer.connect(three);
      const all = ['ov_before_1', 'ov_before_2', 'ov_during'];
      const lateIds: string[][] = [];
      for (const late of [lateOnOne, lateOnThree]) {
        expect(late.hello.role).toBe('mirror');
        // As the web viewer does on a mirror's hello (overlaySync.ts).
        late.send({ type: 'request_sync' });
        const synced = await late.waitFor((m) => {
          if (m.type !== 'sync_state') return false;
          const got = (m as { overlays: Overlay[] }).overlays.map((o) => o.overlay_id);
          return all.every((id) => got.includes(id));
        }, 5000);
        lateIds.push((synced as { overlays: Overlay[] }).overlays.map((o) => o.overlay_id));
      }
      expect(lateIds).toEqual([all, all]);
      // Exactly one control window in the site: the one on bridge 1.
      const windows = [control, mirror, lateOnOne, lateOnThree];
      expect(windows.filter((w) => w.hello.role === 'control')).toEqual([control]);
      const mirrorHasDuring = ids(plane3).includes('ov_during');

      // A token revoked after the restart refuses the next call on every bridge.
      const made = await two.session.request(API.tokens, { body: { name: 'after the restart' } });
      const { token, secret } = (await made.json()) as { token: { id: string }; secret: string };
      const clients = await Promise.all(
        [one, two, three].map((bridge) => connectClient(bridge, { token: secret })),
      );
      for (const { client } of clients)
        expect((await callTool(client, 'list_desktops')).isError).toBeFalsy();
      const revokedAt = performance.now();
      expect(
        (await three.session.request(`${API.tokens}/${token.id}`, { method: 'DELETE' })).status,
      ).toBe(200);
      for (const { client } of clients)
        await expect(callTool(client, 'list_desktops')).rejects.toThrow(/401|revoked/);
      const revokedAfter = performance.now() - revokedAt;

      console.log(
        [
          `[site] NATS stopped under the site: the first call across bridges refused ${refusedAfter.toFixed(0)} ms after`,
          `  while away: ${String(away.length)} calls of the AI on bridge 2, ${String(refused.length)} refused (${[...kinds].join(' | ')}), none reached the window; the local AI went on`,
          `  NATS back: a call across bridges answered by the window's bridge after ${answeredAfter.toFixed(0)} ms; site whole (lease re-held — checked after waiting two lease TTLs —, mode re-read, /readyz) after ${wholeAfter.toFixed(0)} ms`,
          `  once bridge 2 knew the bus was away: ${String(refusedKnowing.length)} calls refused naming the bus, each in ${refusalMs[0]?.toFixed(0) ?? '?'}–${refusalMs[refusalMs.length - 1]?.toFixed(0) ?? '?'} ms (median ${refusalMs[Math.floor(refusalMs.length / 2)]?.toFixed(0) ?? '?'} ms)`,
          `  the control window after the restart: on bridge 1 (where it was), the lease re-taken by it`,
          `  overlay drawn while away reached the open mirror's bridge after the restart: ${mirrorHasDuring ? 'yes' : 'no'}; windows opened after on bridges 1 and 3 get [${lateIds.map((l) => l.join(', ')).join('] and [')}]`,
          `  a token revoked on bridge 3 after the restart refused on all three bridges within ${revokedAfter.toFixed(0)} ms`,
        ].join('\n'),
      );
      for (const { client } of clients) await client.close().catch(() => undefined);
      await remoteAi.client.close();
      await localAi.client.close();
      await lateOnOne.close();
      await lateOnThree.close();
      await mirror.close();
      await control.close();
    }, 180_000);
  },
);
