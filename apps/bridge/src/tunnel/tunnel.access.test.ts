// Who may open /tunnel, against a real bridge with sign-in and a real desktop behind the real
// gateway: only a page of the bridge (Origin) holding an unused tunnel ticket of a signed-in
// person; and signing out closes that session's tunnels (and only those) with the Guacamole
// status for "unauthorized", so the browser asks the person to sign in again.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startGateway,
  startLocalDesktop,
  type LocalDesktop,
  type UnixGateway,
} from '@overlay-companion/gateway';
import { GuacStatus } from '@overlay-companion/guac';
import type { TicketSocket } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Access } from '../auth/access.js';
import { silentLogger } from '../logger.js';
import { startBridge, type RunningBridge } from '../bridge.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { TunnelClient, refusedUpgrade } from '../testing/tunnelClient.js';
import { statusFromClose } from './closeStatus.js';

let workDir: string;
let desktop: LocalDesktop;
let gateway: UnixGateway;
let fixture: TestAccess;
let bridge: RunningBridge;
const cleanups: Array<() => Promise<unknown>> = [];

/** Signs the admin in (in-process) and returns the session with a way to mint its tickets. */
async function signedInSession(access: Access = fixture.access) {
  const { session } = await access.sessions.create(fixture.admin, 'password', 'test');
  return {
    idHash: session.idHash,
    ticket(socket: TicketSocket): string {
      const issued = access.tickets.issue({
        personId: fixture.admin.id,
        sessionIdHash: session.idHash,
        socket,
        headless: false,
      });
      if (!issued.ok) throw new Error(issued.message);
      return issued.ticket;
    },
  };
}

async function startOwnBridge(access: Access): Promise<RunningBridge> {
  const started = await startBridge(
    {
      port: 0,
      webRoot: workDir,
      guacd: { path: gateway.path },
      connection: { protocol: 'vnc', params: { hostname: desktop.rfbPath } },
    },
    { access },
  );
  cleanups.push(() => started.close());
  return started;
}

async function openTunnel(ticket: string, on: RunningBridge = bridge): Promise<TunnelClient> {
  const client = await TunnelClient.open(on.url, ticket);
  cleanups.push(() => client.close());
  return client;
}

const tunnelPath = (ticket?: string) =>
  `/tunnel?width=800&height=600${ticket === undefined ? '' : `&ticket=${ticket}`}`;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'oc-tunnel-access-'));
  desktop = await startLocalDesktop({ windowManager: false });
  gateway = await startGateway({
    path: join(workDir, 'gateway.sock'),
    vncUnixSockets: [desktop.rfbPath],
    logger: silentLogger(),
  });
  fixture = await startTestAccess();
  bridge = await startOwnBridge(fixture.access);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await fixture?.close();
  await gateway?.close();
  await desktop?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('who may open /tunnel', () => {
  it('refuses an upgrade without a ticket, saying how to get one', async () => {
    const refused = await refusedUpgrade(bridge.url, tunnelPath(), { protocol: 'guacamole' });
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('POST /api/tickets');
    expect(bridge.tunnels.size).toBe(0);
  });

  it('refuses a made-up ticket', async () => {
    const refused = await refusedUpgrade(bridge.url, tunnelPath('x'.repeat(32)), {
      protocol: 'guacamole',
    });
    expect(refused.status).toBe(401);
  });

  it('refuses a viewer ticket on /tunnel, and burns it', async () => {
    const session = await signedInSession();
    const viewerTicket = session.ticket('viewer');
    const refused = await refusedUpgrade(bridge.url, tunnelPath(viewerTicket), {
      protocol: 'guacamole',
    });
    expect(refused.status).toBe(401);
    expect(fixture.access.tickets.consume(viewerTicket, 'viewer')).toBeUndefined();
  });

  it('refuses a replayed ticket: each one opens one tunnel', async () => {
    const session = await signedInSession();
    const ticket = session.ticket('tunnel');
    const first = await openTunnel(ticket);
    await first.waitForOpcode('img');
    const replayed = await refusedUpgrade(bridge.url, tunnelPath(ticket), {
      protocol: 'guacamole',
    });
    expect(replayed.status).toBe(401);
    expect(first.isOpen).toBe(true);
  });

  it('refuses an expired ticket', async () => {
    let skewMs = 0;
    const clocked = await startTestAccess({ now: () => Date.now() + skewMs });
    cleanups.push(() => clocked.close());
    const clockedBridge = await startOwnBridge(clocked.access);
    const ticket = await clocked.ticket('tunnel');
    skewMs = 31_000; // tickets live 30 s
    const refused = await refusedUpgrade(clockedBridge.url, tunnelPath(ticket), {
      protocol: 'guacamole',
    });
    expect(refused.status).toBe(401);
  });

  it('refuses upgrades with no Origin or a foreign one, even with a good ticket', async () => {
    const session = await signedInSession();
    const ticket = session.ticket('tunnel');
    const noOrigin = await refusedUpgrade(bridge.url, tunnelPath(ticket), {
      protocol: 'guacamole',
      origin: null,
    });
    expect(noOrigin.status).toBe(403);
    const foreign = await refusedUpgrade(bridge.url, tunnelPath(ticket), {
      protocol: 'guacamole',
      origin: 'http://evil.example',
    });
    expect(foreign.status).toBe(403);
  });

  it('closes the tunnels of a session that signs out with 769, and only those', async () => {
    const leaving = await signedInSession();
    const staying = await signedInSession();
    const spareTicket = leaving.ticket('tunnel');
    const gone = await openTunnel(leaving.ticket('tunnel'));
    const kept = await openTunnel(staying.ticket('tunnel'));
    await gone.waitForOpcode('img');
    await kept.waitForOpcode('img');
    const before = gateway.connectionIds().length;

    await fixture.access.sessions.end(leaving.idHash, 'signed out');

    const closed = await gone.closed;
    expect(closed.code).toBe(4000 + GuacStatus.CLIENT_UNAUTHORIZED);
    expect(statusFromClose(closed.code, closed.reason)).toBe(GuacStatus.CLIENT_UNAUTHORIZED);
    expect(closed.reason).toMatch(/^769 Signed out/);
    // Both sessions are the same person's, so their tunnels shared one desktop connection: it
    // stays for the other session's tunnel, which still relays the desktop.
    expect(before).toBe(1);
    expect(gateway.connectionIds()).toHaveLength(1);
    expect(kept.isOpen).toBe(true);
    const from = kept.instructions.length;
    kept.send('mouse', 10, 10, 0);
    kept.send('mouse', 200, 200, 0);
    await kept.waitForOpcode('sync', { from });
    // Tickets the session had not used yet died with it.
    const refused = await refusedUpgrade(bridge.url, tunnelPath(spareTicket), {
      protocol: 'guacamole',
    });
    expect(refused.status).toBe(401);
  });
});
