// The gateway pool across a site, with real parts: a real nats-server, one Xvnc desktop, two of our
// gateways with a pool secret, and two bridges whose pools share their places through NATS's
// key-value store (gatewayLeases.ts). A window on bridge A opens the desktop's connection; a window
// on bridge B joins that connection on the gateway where it lives (one connection in all) and
// drives the desktop (checked from X). What another holder of the NATS credentials could write
// into the bucket is checked where it arrives: a place failing its schema, or naming a gateway
// outside the pool, is never joined (a new connection opens instead).
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type RunningBridge } from '../bridge.js';
import { silentLogger } from '../logger.js';
import {
  openShowing,
  pointerLands,
  startPoolParts,
  type PoolParts,
} from '../testing/gatewayPoolParts.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { SINGLE_DESKTOP_ID } from '../tunnel/tunnelEndpoint.js';
import { GatewayLeases } from './gatewayLeases.js';
import { SiteBus } from './siteBus.js';
import { SiteKeys } from './siteKeys.js';
import { natsRequired, startTestNats, type TestNats } from './testing/natsServer.js';

const SITE_ID = randomBytes(6).toString('hex');

const nats = await startTestNats();
const skip = 'skip' in nats ? nats.skip : undefined;
if (skip !== undefined && natsRequired())
  throw new Error(`gateway place tests cannot run: ${skip}`);

describe.skipIf(skip !== undefined)('the gateway pool across a site (NATS places)', () => {
  const server = nats as TestNats;
  let parts: PoolParts;
  const buses: SiteBus[] = [];
  const places: GatewayLeases[] = [];
  const bridges: RunningBridge[] = [];
  const clients: TunnelClient[] = [];
  let fixture: TestAccess;

  async function siteBridge(): Promise<RunningBridge> {
    const bus = await SiteBus.join({
      config: { servers: [server.address.replace(/^nats:\/\//, '')], token: server.token },
      siteId: SITE_ID,
      logger: silentLogger(),
      keys: await SiteKeys.load(fixture.access.store.settings, SITE_ID),
    });
    buses.push(bus);
    const leases = new GatewayLeases(bus, silentLogger());
    places.push(leases);
    const bridge = await startBridge(parts.config(), {
      access: fixture.access,
      logger: fixture.logger,
      gatewayPlaces: leases,
    });
    bridges.push(bridge);
    return bridge;
  }

  async function window(on: RunningBridge): Promise<TunnelClient> {
    const client = await openShowing(on.url, await fixture.ticket('tunnel'));
    clients.push(client);
    return client;
  }

  const lands = (client: TunnelClient, x: number, y: number) =>
    pointerLands(client, parts.desktop.env, x, y);
  const connections = () => parts.gateways.flatMap((g) => g.connectionIds());

  beforeAll(async () => {
    parts = await startPoolParts();
    fixture = await startTestAccess();
    await siteBridge();
    await siteBridge();
  }, 60_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await eventually('every connection to end', () => connections().length === 0, 10_000);
  });

  afterAll(async () => {
    for (const bridge of bridges) await bridge.close();
    for (const bus of buses) await bus.close();
    await fixture?.close();
    await parts?.stop();
    await server.stop();
  }, 30_000);

  it("joins a window on bridge B to the connection bridge A opened, on A's gateway", async () => {
    const [a, b] = bridges as [RunningBridge, RunningBridge];
    const first = await window(a);
    const [opened] = connections();
    expect(connections()).toHaveLength(1);
    // B hears of the place through NATS.
    await eventually(
      'bridge B to know where the connection lives',
      async () => (await places[1]!.get(SINGLE_DESKTOP_ID))?.connectionId === opened,
      10_000,
    );
    const second = await window(b);
    expect(connections()).toEqual([opened]);
    expect(b.tunnels.connectionIds()).toEqual([opened]);
    await lands(second, 140, 90);
    // A's window leaves; B's keeps the connection and the desktop.
    await first.close();
    await lands(second, 60, 45);
    expect(connections()).toEqual([opened]);
  }, 60_000);

  it('never joins a place that fails its schema or names a gateway outside the pool', async () => {
    const kv = await buses[0]!.nc
      .jetstream()
      .views.kv(`oc_${SITE_ID}_gateways`, { ttl: 15_000, history: 1 });
    const key = `place.${Buffer.from(SINGLE_DESKTOP_ID).toString('hex')}`;
    // Each with what bridge B's places answer once its watch has it.
    // Sealed as a bridge of the site would (its pool checks the place all the same), and one
    // well-formed but not sealed with the site's key (NATS credentials alone): never read.
    const seal = (place: unknown): Uint8Array => buses[0]!.seal(key, place);
    const forged: [Uint8Array, string | undefined][] = [
      [
        new TextEncoder().encode(
          JSON.stringify({
            member: `127.0.0.1:${String(parts.gateways[0]!.port)}`,
            connectionId: '$unsealed',
          }),
        ),
        undefined,
      ],
      [
        seal({
          member: `127.0.0.1:${String(parts.gateways[0]!.port)}`,
          connectionId: 'x',
        }),
        undefined,
      ],
      [seal({ member: '127.0.0.1:9', connectionId: '$abc' }), '127.0.0.1:9'],
      [new TextEncoder().encode('not json'), undefined],
    ];
    for (const [value, seen] of forged) {
      await kv.put(key, value);
      await eventually(
        'bridge B to have the forged place',
        async () => (await places[1]!.get(SINGLE_DESKTOP_ID))?.member === seen,
        10_000,
      );
      const client = await window(bridges[1]!);
      // A connection of its own, on a gateway of the pool.
      expect(connections()).toHaveLength(1);
      await lands(client, 33, 44);
      await client.close();
      clients.splice(clients.indexOf(client), 1);
      await eventually('the connection to end', () => connections().length === 0, 10_000);
    }
  }, 60_000);
});
