// Two people on one xrdp host, at the same time: each has a guacd-rdp desktop record of their own
// (added by an admin through POST /api/desktops, owned by that person, the account's password
// sealed by the bridge), and each opens a tunnel to it with a ticket naming it (POST
// /api/tickets from their own signed-in browser session). The bridge keeps one connection per
// desktop and logs each in with ITS account, so xrdp runs two sessions on two Xorg displays; a
// click through one person's tunnel lands on their display only (xdotool getmouselocation on
// both), and both tunnels keep getting frames while the other is in use — the old bug was one
// RDP account for everyone, where a second login took the session over and froze the first.
// Real guacd, real xrdp + xorgxrdp; skips (with the reason) where either is missing, fails there
// under OC_REQUIRE_GUACD=1.
import { join } from 'node:path';
import { API, type DesktopView } from '@overlay-companion/protocol';
import { afterAll, beforeAll, expect, it, type TestContext } from 'vitest';
import { startWithDesktopControl, type ControlledBridge } from '../bridge.js';
import { addPerson, type OtherPerson } from '../perimeter/testing/people.js';
import { signIn } from '../testing/browserSession.js';
import { skipOrFail, startTestGuacd, type TestGuacd } from '../testing/guacd.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startTestAccess } from '../testing/testAccess.js';
import type { TestAccess } from '../testing/testAccess.js';
import { registerSecret } from '../testing/testLogs.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { startTestXrdp, type TestXrdp, type XrdpSession } from '../testing/xrdp.js';
import {
  addXrdpAccount,
  stopAccountProcesses,
  xrdpSessionOf,
  type XrdpAccount,
} from '../testing/xrdpAccounts.js';
import { pointer, windowRect } from '../testing/xside.js';

const SECOND_ACCOUNT = 'oc-rdp-test2';
/**
 * Two RDP logins at once on two cores take a while to paint; real xrdp logins on a loaded CI
 * machine get one retry, as on the other guacd/xrdp paths.
 */
const SLOW = { timeout: 180_000, retry: 1 };

let skipped: string | undefined;
let guacd: TestGuacd | undefined;
let xrdp: TestXrdp | undefined;
let fixture: TestAccess | undefined;
let bridge: ControlledBridge | undefined;
let second: XrdpAccount | undefined;
const clients: TunnelClient[] = [];

interface Seat {
  person: OtherPerson;
  account: { username: string; password: string };
  desktop: DesktopView;
}
let ann: Seat;
let bea: Seat;

beforeAll(async () => {
  const startedGuacd = await startTestGuacd();
  if ('skip' in startedGuacd) {
    skipped = skipOrFail('The RDP-per-desktop', startedGuacd.skip);
    return;
  }
  guacd = startedGuacd;
  const startedXrdp = await startTestXrdp();
  if ('skip' in startedXrdp) {
    skipped = skipOrFail('The RDP-per-desktop', startedXrdp.skip);
    return;
  }
  xrdp = startedXrdp;
  second = await addXrdpAccount(SECOND_ACCOUNT);
  fixture = await startTestAccess();
  bridge = await startWithDesktopControl(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir: fixture.dataDir,
      webRoot: join(fixture.dataDir, 'no-web-build'),
      // The command line's desktop goes nowhere: only the records are opened here.
      guacd: { host: '127.0.0.1', port: 9 },
      connection: { protocol: 'vnc', params: {} },
    },
    { access: fixture.access, guacdForRecords: { host: guacd.host, port: guacd.port } },
    { logger: fixture.logger },
  );
  const admin = await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
  const seat = async (username: string, account: Seat['account']): Promise<Seat> => {
    // Members: the admin chose where their desktops point (this machine's xrdp), which a
    // member could not have (desktops/memberHosts.ts).
    const person = await addPerson(admin, username);
    const answer = await admin.request(API.desktops, {
      body: {
        name: `${username}'s RDP`,
        kind: 'guacd-rdp',
        params: { host: startedXrdp.host, port: startedXrdp.port, username: account.username },
        secrets: { password: account.password },
        owner_id: person.person.id,
      },
    });
    if (answer.status !== 201)
      throw new Error(`adding ${username}'s desktop: ${answer.status} ${await answer.text()}`);
    return { person, account, desktop: (await answer.json()) as DesktopView };
  };
  ann = await seat('ann', startedXrdp);
  bea = await seat('bea', second);
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await bridge?.close();
  await fixture?.close();
  await xrdp?.stop();
  if (second !== undefined) await stopAccountProcesses(second.username);
  await guacd?.stop();
}, 60_000);

function skipIfMissing(ctx: TestContext): void {
  if (skipped !== undefined) ctx.skip(skipped);
}

/** A tunnel to the seat's own desktop, with a ticket their browser asked for naming it. */
async function openTunnel(seat: Seat): Promise<TunnelClient> {
  const answer = await seat.person.session.request(API.tickets, {
    body: { socket: 'tunnel', desktop: seat.desktop.id },
  });
  if (!answer.ok) throw new Error(`ticket: ${answer.status} ${await answer.text()}`);
  const { ticket } = (await answer.json()) as { ticket: string };
  registerSecret(ticket);
  const client = await TunnelClient.open(bridge?.url ?? '', ticket);
  clients.push(client);
  return client;
}

/** Waits for a frame with a drawing on the default layer after `from`, up to its sync. */
async function drawnFrame(client: TunnelClient, from = 0, what = 'a frame'): Promise<void> {
  const drawn = await client.waitFor(
    (i) =>
      i.opcode === 'error' ||
      (i.opcode === 'img' && i.args[2] === '0') ||
      (i.opcode === 'cfill' && i.args[1] === '0') ||
      (i.opcode === 'copy' && i.args[6] === '0'),
    { from, timeoutMs: 60_000, what: `${what} (a drawing)` },
  );
  if (drawn.opcode === 'error')
    throw new Error(`${what}: the tunnel failed: ${drawn.args.join(' / ')}`);
  const at = client.instructions.indexOf(drawn, from);
  await client.waitForOpcode('sync', { from: at, timeoutMs: 30_000 });
}

/** Clicks at (x, y) through the tunnel; the pointer of `display` must get there. */
async function clickThrough(client: TunnelClient, display: XrdpSession, x: number, y: number) {
  client.send('mouse', x, y, 0);
  client.send('mouse', x, y, 1);
  client.send('mouse', x, y, 0);
  await eventually(
    `the pointer of ${display.display} to reach (${x}, ${y})`,
    async () => {
      const at = await pointer(display.env);
      return at.x === x && at.y === y;
    },
    15_000,
  );
}

it(
  'runs two RDP sessions at once, one per desktop record, each with its own account and display',
  SLOW,
  async (ctx) => {
    skipIfMissing(ctx);
    if (bridge === undefined || xrdp === undefined || second === undefined)
      throw new Error('beforeAll did not start everything');
    // Both at the same time: neither waits for the other's login.
    const [annTunnel, beaTunnel] = await Promise.all([openTunnel(ann), openTunnel(bea)]);
    await Promise.all([
      drawnFrame(annTunnel, 0, "ann's first frame"),
      drawnFrame(beaTunnel, 0, "bea's first frame"),
    ]);
    const [annX, beaX] = await Promise.all([
      xrdpSessionOf(xrdp.username, 90_000),
      xrdpSessionOf(second.username, 90_000),
    ]);
    // Two logins, two sessions: two Xorg displays, and two connections on the bridge.
    expect(annX.display).not.toBe(beaX.display);
    expect(bridge.tunnels.connectionIds()).toHaveLength(2);
    expect(annTunnel.framingErrors).toEqual([]);
    expect(beaTunnel.framingErrors).toEqual([]);

    // A click through Ann's tunnel lands on Ann's display, and Bea's pointer stays where it was.
    const beaBefore = await pointer(beaX.env);
    const annXterm = await windowRect(annX.env, 'xterm');
    const annAt = { x: annXterm.x + 37, y: annXterm.y + 41 };
    await clickThrough(annTunnel, annX, annAt.x, annAt.y);
    expect(await pointer(beaX.env)).toEqual(beaBefore);

    // And the other way round: Bea's click moves Bea's pointer, Ann's stays on her click.
    const beaXterm = await windowRect(beaX.env, 'xterm');
    const beaAt = { x: beaXterm.x + 53, y: beaXterm.y + 29 };
    expect(beaAt).not.toEqual(annAt);
    await clickThrough(beaTunnel, beaX, beaAt.x, beaAt.y);
    expect(await pointer(annX.env)).toEqual(annAt);

    // Both sessions stay live while the other is used: a key typed into each xterm echoes, and
    // each tunnel gets a new frame with a drawing in it — Ann's first, after Bea logged in.
    for (const [tunnel, name] of [
      [annTunnel, 'ann'],
      [beaTunnel, 'bea'],
      [annTunnel, 'ann'],
    ] as const) {
      const from = tunnel.instructions.length;
      tunnel.send('key', 0x78, 1); // x
      tunnel.send('key', 0x78, 0);
      await drawnFrame(tunnel, from, `${name}'s frame after a key`);
    }
    expect(annTunnel.isOpen).toBe(true);
    expect(beaTunnel.isOpen).toBe(true);
  },
);

it(
  'refuses a second desktop with the same RDP account while the first is open, saying why, and the first keeps working',
  SLOW,
  async (ctx) => {
    skipIfMissing(ctx);
    if (bridge === undefined || xrdp === undefined) throw new Error('beforeAll did not start');
    // Ann's account again, on a desktop of the admin's: xrdp would hand it Ann's session.
    const admin = await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    const added = await admin.request(API.desktops, {
      body: {
        name: 'Same account',
        kind: 'guacd-rdp',
        params: { host: xrdp.host, port: xrdp.port, username: xrdp.username },
        secrets: { password: xrdp.password },
      },
    });
    expect(added.status).toBe(201);
    const same = (await added.json()) as DesktopView;
    const annTunnel = clients.find((c) => c.isOpen) ?? (await openTunnel(ann));
    await drawnFrame(annTunnel, 0, "ann's frame");
    const ticket = await admin.request(API.tickets, {
      body: { socket: 'tunnel', desktop: same.id },
    });
    const { ticket: secret } = (await ticket.json()) as { ticket: string };
    registerSecret(secret);
    const refused = await TunnelClient.open(bridge.url, secret);
    clients.push(refused);
    const error = await refused.waitForOpcode('error', { timeoutMs: 15_000 });
    expect(error.args[0]).toContain('same RDP server and account');
    expect(error.args[1]).toBe('521'); // SESSION_CONFLICT
    // Ann's session was not taken over: a key still draws in her tunnel.
    const from = annTunnel.instructions.length;
    annTunnel.send('key', 0x79, 1);
    annTunnel.send('key', 0x79, 0);
    await drawnFrame(annTunnel, from, "ann's frame after the refusal");
    expect(annTunnel.isOpen).toBe(true);
  },
);
