// The audit names who decided an AI call across the bridges of a site (ARCHITECTURE: "The audit
// records who or what decided"): Stop pressed by a person whose windows are all on another bridge
// is named by their display name on the bridge that audits the call (it showed their id), and the
// AI's mode raise asked in a window on another bridge tells "denied by <name>" from "no answer"
// (the words claim neither when the window's bridge is older than that part of its answer).
// Real site: nats-server and PostgreSQL (site/testing/siteServers.ts), two bridges in this
// process, the AI's MCP SDK client on bridge 2, SCRIPTED VIEWERS (the people's windows) on
// bridge 1; the older bridge is a FAKE on the bus.
import { connect } from 'nats';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { addPerson, type OtherPerson } from '../perimeter/testing/people.js';
import { nextOf } from '../perimeter/testing/viewers.js';
import { postgresRequired } from '../store/testing/postgres.js';
import { natsRequired } from '../site/testing/natsServer.js';
import { leaseKey } from '../site/controlLeases.js';
import { startSiteServers } from '../site/testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from '../site/testing/siteBridges.js';
import { waitUntil } from '../site/testing/waitUntil.js';

const { nats, postgres, missing } = await startSiteServers();

test('nats-server and PostgreSQL run the site audit suite (required in CI)', (ctx) => {
  if (missing === undefined) return;
  if (natsRequired() || postgresRequired()) throw new Error(`site tests cannot run: ${missing}`);
  ctx.skip(missing);
});

describe.runIf(missing === undefined)('who decided, across the bridges of a site', () => {
  let one: SiteBridge;
  let two: SiteBridge;
  let bob: OtherPerson;

  beforeAll(async () => {
    const databaseUrl = await postgres.newDatabase();
    const site = { servers: [nats.address], token: nats.token };
    // Assist: a click is asked in the person's window.
    one = await startSiteBridge({ name: 'windows', databaseUrl, site, initialMode: 'assist' });
    two = await startSiteBridge({ name: 'ai', databaseUrl, site, initialMode: 'assist' });
    bob = await addPerson(one.session, 'bob', { grant: 'control', displayName: 'Bob Stopper' });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  /** The windows and AI clients a test opened, closed after it whatever happened. */
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const each of opened.splice(0).reverse()) await each.close();
    // Gone from bridge 1 too, so the next test's first window there is the control window.
    const plane1 = await one.desktopControl.planes.get(one.desktopId);
    await waitUntil(() => plane1?.hub.control === undefined, 5000);
  });
  async function open<T extends { close(): Promise<void> }>(made: Promise<T>): Promise<T> {
    const each = await made;
    opened.push(each);
    return each;
  }

  /** The AI's MCP client, on bridge 2. */
  const aiOnTwo = async () => {
    const { client } = await connectClient(two, { token: TOKEN });
    opened.push(client);
    return client;
  };

  /** The audit entry of the latest call of `tool`, as bridge 2 (the AI's) wrote it. */
  async function lastCall(tool: string) {
    await two.access.audit.flush();
    const [entry] = await two.access.store.audit.query({ kind: 'tool_call', tool, limit: 1 });
    return entry;
  }

  /** Until bridge 2 sees the control window held on bridge 1. */
  const held = () =>
    waitUntil(async () => (await two.site!.remote.holder(two.desktopId)) !== undefined, 5000);

  test('Stop pressed on bridge 1 by someone with no window on bridge 2 is named there', async () => {
    const admin = await open(ScriptedViewer.connect(one));
    const bobs = await open(ScriptedViewer.connect(bob.session));
    await held();
    const client = await aiOnTwo();
    admin.on('click_at', 'ignore');
    const asked = nextOf(admin, 'tool_call');
    const click = callTool(client, 'click_at', { x: 6, y: 6 });
    expect((await asked()).policy).toBe('confirm');
    bobs.send({ type: 'stop_pressed' });
    expect(errorOf(await click).kind).toBe('cancelled');
    expect(await lastCall('click_at')).toMatchObject({
      decision: 'confirm',
      outcome: 'stopped',
      decidedBy: 'Stop, pressed by Bob Stopper',
      decidedByPersonId: bob.person.id,
    });
  });

  test("the AI's mode raise, asked on bridge 1: denied by the person, named on bridge 2", async () => {
    const window = await open(ScriptedViewer.connect(one));
    await held();
    window.send({ type: 'mode_set', mode: 'passive' });
    const plane2 = await two.desktopControl.planes.get(two.desktopId);
    await waitUntil(() => plane2?.mode.mode === 'passive', 5000);
    const client = await aiOnTwo();
    const request = nextOf(window, 'approval_request');
    const raising = callTool(client, 'set_mode', { mode: 'assist' });
    window.send({ type: 'approval', request_id: (await request()).request_id, approved: false });
    expect(errorOf(await raising).kind).toBe('permission_denied');
    expect(await lastCall('set_mode')).toMatchObject({
      decision: 'confirm',
      outcome: 'denied_by_person',
      decidedBy: one.admin.displayName,
      decidedByPersonId: one.admin.id,
    });
  });

  test("a mode raise refused by a bridge older than 'answered': the old words, not a guess", async () => {
    // A FAKE older bridge (the one protocol edge no test reaches otherwise): it holds the
    // desktop's control lease, answers pings, and refuses the raise without saying whether the
    // person declined or nobody answered — sealed with the site's key, as any bridge of the site.
    const bus = one.site!.bus;
    const older = 'bOlderBridge';
    const nc = await connect({ servers: nats.address, token: nats.token });
    opened.push({ close: () => nc.close() });
    nc.subscribe(bus.bridgeSubject(older, 'ping'), {
      callback: (_err, msg) => msg.respond(bus.sealReply(msg, { type: 'pong', from: older })),
    });
    nc.subscribe(bus.bridgeSubject(older, 'approve'), {
      callback: (_err, msg) => msg.respond(bus.sealReply(msg, { ok: true, approved: false })),
    });
    const key = leaseKey(two.desktopId);
    const leases = await bus.leases();
    await leases.put(key, bus.seal(key, { bridge: older, headless: false }));
    opened.push({ close: () => leases.delete(key).then(() => undefined) });
    await waitUntil(async () => (await two.site!.remote.holder(two.desktopId))?.bridge === older);
    const plane2 = await two.desktopControl.planes.get(two.desktopId);
    plane2?.mode.set('passive', undefined, 'person');
    const client = await aiOnTwo();
    const refused = await callTool(client, 'set_mode', { mode: 'assist' });
    expect(errorOf(refused).message).toMatch(/\(declined, or no answer within 30 s\)/);
    expect(await lastCall('set_mode')).toMatchObject({
      decision: 'confirm',
      outcome: 'permission_denied',
      decidedBy: `${two.admin.displayName}’s answer to the raise, or no answer within 30 s`,
      decidedByPersonId: null,
    });
  });
});
