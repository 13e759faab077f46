// A site on a real three-node NATS cluster (and a real PostgreSQL), three bridges in this
// process each given every node: the site's key-value buckets are kept on all three nodes, so
// killing the node that leads the control-lease bucket (SIGKILL, as a machine lost) leaves the
// leases working — the control window on bridge 1 keeps its lease, a window opening on bridge 3
// is still a mirror, the AI's call on bridge 2 still finds and reaches the window on bridge 1,
// and a lease given up is taken by another bridge. With one copy of the bucket, on the killed
// node, each of those fails (the lease reads fail closed, and a second control window opens).
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { callTool } from '../mcp/testing/calls.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { postgresRequired, startTestPostgres } from '../store/testing/postgres.js';
import { MAX_BUCKET_REPLICAS } from './siteBuckets.js';
import { startTestNatsCluster, type TestNatsCluster } from './testing/natsCluster.js';
import { natsRequired } from './testing/natsServer.js';
import { argX } from './testing/relayedArgs.js';
import { startSiteBridge, TOKEN, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';

const cluster = await startTestNatsCluster();
const postgres = await startTestPostgres();
const missing = 'skip' in cluster ? cluster.skip : 'skip' in postgres ? postgres.skip : undefined;
if (missing !== undefined && (natsRequired() || postgresRequired()))
  throw new Error(`the NATS cluster fault test cannot run: ${missing}`);

describe.runIf(missing === undefined)('a site on a three-node NATS cluster', () => {
  const nats = cluster as TestNatsCluster;
  const bridges: SiteBridge[] = [];
  let watcher: NatsConnection;

  beforeAll(async () => {
    if ('skip' in postgres) return;
    const databaseUrl = await postgres.newDatabase();
    const site = { servers: nats.nodes.map((n) => n.address), token: nats.token };
    for (const name of ['c one', 'c two', 'c three'])
      bridges.push(await startSiteBridge({ name, databaseUrl, site, initialMode: 'autopilot' }));
    watcher = await connect({
      servers: nats.nodes.map((n) => n.address),
      token: nats.token,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    });
  }, 120_000);
  afterAll(async () => {
    for (const bridge of bridges.reverse()) await bridge.close();
    await watcher?.close();
    await nats.stop();
    if (!('skip' in postgres)) await postgres.stop();
  }, 60_000);

  test('the node leading the control-lease bucket is killed: the leases go on', async () => {
    const [one, two, three] = bridges as [SiteBridge, SiteBridge, SiteBridge];
    const held = (bridge: SiteBridge): boolean =>
      bridge.site!.remote.controlElsewhere(bridge.desktopId);
    // JetStream needs the cluster's meta leader before any bucket: the bridges keep retrying.
    const control = await ScriptedViewer.connect(one);
    control.on('click_at', { result: { success: true, was_confirmed: false } });
    expect(control.hello.role).toBe('control');
    await waitUntil(() => held(two) && held(three), 60_000);

    const stream = `KV_oc_${one.site!.bus.subject().split('.')[1]!}_control`;
    const jsm = await watcher.jetstreamManager();
    const before = await jsm.streams.info(stream);
    expect(before.config.num_replicas).toBe(MAX_BUCKET_REPLICAS);
    const leader = before.cluster?.leader;
    const victim = nats.nodes.find((node) => node.name === leader);
    expect(victim, `the bucket's leader ${String(leader)} is a node of the cluster`).toBeDefined();
    const lastWrite = async (): Promise<number> => (await jsm.streams.info(stream)).state.last_seq;
    const writtenBefore = await lastWrite();
    const killedAt = performance.now();
    await victim!.kill();

    // The AI on bridge 2 finds the window on bridge 1 and reaches it.
    const ai = await connectClient(two, { token: TOKEN });
    let reached = NaN;
    await waitUntil(async () => {
      const result = await callTool(ai.client, 'click_at', { x: 21, y: 22 });
      reached = performance.now() - killedAt;
      return result.isError !== true;
    }, 30_000);
    expect(control.toolCalls('click_at').some((c) => argX(c) === 21)).toBe(true);
    // Another node leads the bucket, and bridge 1's refreshes are written there.
    let newLeader: string | undefined;
    await waitUntil(async () => {
      newLeader = await jsm.streams
        .info(stream)
        .then((info) => info.cluster?.leader)
        .catch(() => undefined);
      return newLeader !== undefined && newLeader !== leader;
    }, 30_000);
    const ledAfter = performance.now() - killedAt;
    const writtenAfter = await lastWrite();
    await waitUntil(async () => (await lastWrite()) > writtenAfter, 15_000);
    expect(writtenAfter).toBeGreaterThanOrEqual(writtenBefore);

    // Two lease lifetimes later, refreshed through the new leader: still bridge 1's, and a window
    // opening on bridge 3 is a mirror (one control window in the site).
    await new Promise((resolve) => setTimeout(resolve, 2 * one.site!.bus.leaseTtlMs));
    expect(held(two) && held(three)).toBe(true);
    const mirror = await ScriptedViewer.connect(three);
    expect(mirror.hello.role).toBe('mirror');
    mirror.on('click_at', { result: { success: true, was_confirmed: false } });

    // Given up on bridge 1, the lease is taken by bridge 3's window.
    await control.close();
    await mirror.waitFor((m) => m.type === 'hello' && m.role === 'control', 15_000);
    await waitUntil(
      async () =>
        (await two.site!.remote.holder(two.desktopId))?.bridge === three.site!.bus.bridgeId,
      15_000,
    );
    const third = await callTool(ai.client, 'click_at', { x: 23, y: 24 });
    expect(third.isError, JSON.stringify(third.structuredContent)).toBeFalsy();
    console.log(
      `[site] NATS node ${String(leader)} (the control bucket's leader) killed: the AI's call across bridges answered again after ${reached.toFixed(0)} ms; ${String(newLeader)} seen leading the bucket after ${ledAfter.toFixed(0)} ms`,
    );
    await ai.client.close();
    await mirror.close();
  }, 120_000);
});
