// The gateway pool with real parts: one Xvnc desktop (loopback TCP), two of our gateways started
// with a pool secret, and a bridge given both (--gateways). A window's connection opens on one
// gateway and a second window joins it there; the pool secret is what lets the bridge in (a
// bridge with another secret is refused and nothing opens); a gateway that dies is taken out of
// the pool and the desktop's next window opens through the other one. Every effect is checked
// from X (the pointer lands where the window moved it). Placement by load is checked on the pool
// itself with its memory places.
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startBridge, type RunningBridge } from '../bridge.js';
import { silentLogger } from '../logger.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import {
  openShowing,
  pointerLands,
  startPoolParts,
  type PoolParts,
} from '../testing/gatewayPoolParts.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { GatewayPool, memberKey, type PoolMember } from './gatewayPool.js';
import { MemoryGatewayPlaces } from './gatewayPlaces.js';

/** The placement tests' pool secret (no gateway checks it there). */
const SECRET = randomBytes(32).toString('base64url');

describe('a bridge with a pool of two gateways', () => {
  let parts: PoolParts;
  let fixture: TestAccess;
  let bridge: RunningBridge;
  const bridges: RunningBridge[] = [];
  const clients: TunnelClient[] = [];

  async function poolBridge(secret?: string): Promise<RunningBridge> {
    const started = await startBridge(parts.config(secret), {
      access: fixture.access,
      logger: fixture.logger,
    });
    bridges.push(started);
    return started;
  }

  async function open(on = bridge): Promise<TunnelClient> {
    const client = await TunnelClient.open(on.url, await fixture.ticket('tunnel'));
    clients.push(client);
    return client;
  }

  async function window(on = bridge): Promise<TunnelClient> {
    const client = await openShowing(on.url, await fixture.ticket('tunnel'));
    clients.push(client);
    return client;
  }

  const lands = (client: TunnelClient, x: number, y: number) =>
    pointerLands(client, parts.desktop.env, x, y);

  beforeAll(async () => {
    parts = await startPoolParts();
    fixture = await startTestAccess();
    bridge = await poolBridge();
  }, 60_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await eventually('every tunnel to end', () => bridge.tunnels.size === 0, 10_000);
    // A gateway ends a connection once its last user has left: let it, before the next test.
    await eventually('every connection to end', () => parts.counts().every((n) => n === 0), 10_000);
  });

  afterAll(async () => {
    for (const b of bridges) await b.close();
    await fixture?.close();
    await parts?.stop();
  }, 30_000);

  it('opens the connection on one gateway and joins a second window to it there', async () => {
    const first = await window();
    expect(parts.counts().sort()).toEqual([0, 1]);
    const second = await window();
    // One connection, on one gateway: the second window joined where it lives.
    expect(parts.counts().sort()).toEqual([0, 1]);
    expect(new Set(bridge.tunnels.connectionIds()).size).toBe(1);
    await lands(first, 101, 57);
    await lands(second, 203, 99);
  }, 60_000);

  it('refuses a bridge without the pool secret, and nothing opens', async () => {
    const stranger = await poolBridge(randomBytes(32).toString('base64url'));
    const client = await open(stranger);
    const error = await client.waitForOpcode('error', { timeoutMs: 20_000 });
    expect(error.args[0]).toMatch(/serves only the bridges of its pool/);
    expect(parts.counts()).toEqual([0, 0]);
  }, 30_000);

  it('moves the desktop to the other gateway when its gateway dies', async () => {
    const first = await window();
    await lands(first, 150, 80);
    const { gateways } = parts;
    const holder = gateways.findIndex((g) => g.connectionIds().length === 1);
    expect(holder).toBeGreaterThan(-1);
    const dead = gateways[holder]!;
    const other = gateways[1 - holder]!;
    await dead.close();
    // The window loses its tunnel (the viewer reconnects: here, a new window).
    await first.closed;
    const again = await window();
    expect(other.connectionIds()).toHaveLength(1);
    await lands(again, 222, 111);
    // The pool keeps it out: a further window joins on the living gateway.
    const more = await window();
    expect(other.connectionIds()).toHaveLength(1);
    await lands(more, 77, 66);
  }, 60_000);
});

describe('placing new connections', () => {
  // Two listeners that accept and close (the health probe finds them up).
  const servers = [createServer((s) => s.destroy()), createServer((s) => s.destroy())];
  const members: PoolMember[] = [];
  let pool: GatewayPool;
  beforeAll(async () => {
    for (const [i, server] of servers.entries()) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      members.push({ kind: i === 0 ? 'gateway' : 'guacd', host: '127.0.0.1', port });
    }
    pool = new GatewayPool({ members, secret: SECRET }, silentLogger());
  });
  afterAll(async () => {
    pool.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });
  const key = (i: number) => memberKey(members[i]!);

  it('takes the member with the fewest connections, and only guacd for RDP', async () => {
    expect(memberKey(await pool.pick('vnc', new Set()))).toBe(key(0));
    await pool.hold('d1', { member: key(0), connectionId: '$a' });
    expect(memberKey(await pool.pick('vnc', new Set()))).toBe(key(1));
    await pool.hold('d2', { member: key(1), connectionId: '$b' });
    await pool.hold('d3', { member: key(1), connectionId: '$c' });
    expect(memberKey(await pool.pick('vnc', new Set()))).toBe(key(0));
    // Our gateway speaks VNC only.
    expect(memberKey(await pool.pick('rdp', new Set()))).toBe(key(1));
    // A connection being opened counts too.
    const done = pool.opened(members[0]!);
    await pool.hold('d4', { member: key(0), connectionId: '$d' });
    expect(memberKey(await pool.pick('vnc', new Set()))).toBe(key(1));
    done();
  });

  it('sends the secret only to our gateways, and skips a member that is down', async () => {
    const [gateway, guacd] = members as [PoolMember, PoolMember];
    expect(pool.addressOf(gateway)).toEqual({
      host: gateway.host,
      port: gateway.port,
      secret: SECRET,
    });
    expect(pool.addressOf(guacd)).toEqual({ host: guacd.host, port: guacd.port });
    pool.markDown(members[0]!, 'test');
    expect(memberKey(await pool.pick('vnc', new Set()))).toBe(key(1));
    expect(await pool.placeOf('d1')).toBeUndefined();
    pool.markDown(members[1]!, 'test');
    await expect(pool.pick('vnc', new Set())).rejects.toThrow(/No gateway of the pool/);
  });

  it('joins only places a bridge of the pool signed', async () => {
    const places = new MemoryGatewayPlaces();
    const pool = new GatewayPool({ members, secret: SECRET }, silentLogger());
    pool.usePlaces(places);
    onTestFinished(() => pool.close());
    await pool.hold('signed', { member: key(0), connectionId: '$a' });
    expect(await pool.placeOf('signed')).toEqual({ member: members[0], connectionId: '$a' });
    // Written by someone with the site's NATS but not the pool secret: unsigned, or a bridge's
    // signature copied onto another desktop or connection.
    const good = (await places.get('signed'))!;
    await places.hold('unsigned', { member: key(0), connectionId: '$a' });
    await places.hold('moved', good);
    await places.hold('other', { ...good, connectionId: '$b' });
    for (const desktop of ['unsigned', 'moved', 'other'])
      expect(await pool.placeOf(desktop), desktop).toBeUndefined();
  });
});
