// Several bridges as one site, for real: a nats-server (JetStream on, a token required) and a
// PostgreSQL started on loopback by the test, and three bridges in this process on their own
// ports, data dirs and logs, sharing the database and the NATS. The person's window (the
// scripted viewer) is on bridge 1, the AI's MCP SDK client on bridge 2, and what is done on one
// bridge is checked where another one shows it: a revocation on bridge 3 refuses the next call on
// bridge 1 (the time is measured and printed), sign-out, toggles, mode and Stop reach the windows
// and planes of the other bridges, and the mode survives a restart of every bridge.
// Without nats-server or PostgreSQL the suite is skipped with the reason, unless CI requires them.
import { API } from '@overlay-companion/protocol';
import { connect, type Msg } from 'nats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectClient, INITIALIZE_REQUEST, screenshotResult } from '../mcp/testing/fixtures.js';
import { callTool, errorOf, textOf } from '../mcp/testing/calls.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { postgresRequired } from '../store/testing/postgres.js';
import { SiteBus } from './siteBus.js';
import { SiteKeys } from './siteKeys.js';
import { sealedBody } from './testing/sealed.js';
import { natsRequired } from './testing/natsServer.js';
import { startSiteServers } from './testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';
import { aiWithBackgroundCaptures, tooLargeForNats } from './testing/backgroundCaptures.js';
import { argX } from './testing/relayedArgs.js';
import { openKey } from '../limits/openElsewhere.js';
import { MAX_SESSIONS_PER_TOKEN } from '../mcp/sessions.js';
import { MAX_TUNNELS_PER_PERSON } from '../perimeter/socketTickets.js';
import { tryUpgrade, tunnelPath } from '../perimeter/testing/http.js';
import { silentLogger } from '../logger.js';
import { StartupError } from '../errors.js';
import { signIn, sessionFromCookie } from '../testing/browserSession.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../testing/testAccess.js';

const { nats, postgres, missing } = await startSiteServers();

test('nats-server and PostgreSQL run the site suite (required in CI)', (ctx) => {
  if (missing === undefined) return;
  if (natsRequired() || postgresRequired()) throw new Error(`site tests cannot run: ${missing}`);
  ctx.skip(missing);
});

describe.runIf(missing === undefined)('a site of three bridges', () => {
  const n = nats;
  const pg = postgres;
  let databaseUrl: string;
  let bridges: SiteBridge[] = [];
  const start = async (name: string): Promise<SiteBridge> =>
    startSiteBridge({
      name,
      databaseUrl,
      site: { servers: [n.address], token: n.token },
    });

  beforeAll(async () => {
    databaseUrl = await pg.newDatabase();
    // One after the other: the first migrates the database and adds the admin.
    for (const name of ['one', 'two', 'three']) bridges.push(await start(name));
  });
  afterAll(async () => {
    for (const bridge of bridges) await bridge.close();
  });

  test('they are one site: the same site id, each bridge its own id', () => {
    const [one, two, three] = bridges;
    expect(one?.site?.bus.subject('events')).toBe(two?.site?.bus.subject('events'));
    expect(new Set(bridges.map((b) => b.site?.bus.bridgeId)).size).toBe(3);
    expect(three?.site?.bus.subject('events')).toMatch(/^oc\.[0-9a-f]{18}\.events$/);
  });

  test('a token revoked on bridge 3 refuses the next call on bridge 1 (time measured)', async () => {
    const [one, two, three] = bridges as [SiteBridge, SiteBridge, SiteBridge];
    const ai = await connectClient(one, { token: TOKEN });
    expect(textOf(await callTool(ai.client, 'list_desktops'))).toContain('Desktop');
    // Tokens made on bridge 2's /config page, used on bridge 1 (cached there), revoked on
    // bridge 3; the next request on bridge 1 must be refused.
    const timings: number[] = [];
    for (let trial = 0; trial < 10; trial += 1) {
      const made = await two.session.request(API.tokens, { body: { name: `revoke me ${trial}` } });
      expect(made.status).toBe(201);
      const { token, secret } = (await made.json()) as { token: { id: string }; secret: string };
      expect((await initialize(one, secret)).status).toBe(200);
      const started = performance.now();
      const revoked = await three.session.request(`${API.tokens}/${token.id}`, {
        method: 'DELETE',
      });
      expect(revoked.status).toBe(200);
      const next = await initialize(one, secret);
      timings.push(performance.now() - started);
      expect(next.status).toBe(401);
      expect(await next.text()).toContain('revoked');
    }
    timings.sort((a, b) => a - b);
    console.log(
      `[site] revoke on bridge 3 → refused on bridge 1: median ${timings[5]?.toFixed(1)} ms, max ${timings.at(-1)?.toFixed(1)} ms (DELETE + next request, 10 trials)`,
    );
    // The SDK client's own session on bridge 1 ends when its token is revoked on bridge 3.
    const own = await two.session.request(API.tokens);
    const listed = (await own.json()) as { tokens: Array<{ id: string; name: string }> };
    const siteToken = listed.tokens.find((t) => t.name === 'site test token');
    expect(siteToken).toBeDefined();
    expect(
      (await three.session.request(`${API.tokens}/${siteToken?.id}`, { method: 'DELETE' })).status,
    ).toBe(200);
    await expect(callTool(ai.client, 'list_desktops')).rejects.toThrow(/401|revoked/);
    await ai.client.close().catch(() => undefined);
  });

  test('a ticket asked of bridge 1 opens a window on bridge 2, once', async () => {
    const [one, two, three] = bridges as [SiteBridge, SiteBridge, SiteBridge];
    const ticket = await one.ticket();
    const window = await ScriptedViewer.connectWithTicket(two.url, ticket);
    expect(window.hello.role).toBe('control');
    // Used on bridge 2: refused on bridges 3 and 1, once the news had its moment to arrive.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(ScriptedViewer.connectWithTicket(three.url, ticket)).rejects.toThrow(/401/);
    await expect(ScriptedViewer.connectWithTicket(one.url, ticket)).rejects.toThrow(/401/);
    await window.close();
  });

  test('a window on bridge 1 closes when its person signs out on bridge 2', async () => {
    const [one, two] = bridges as [SiteBridge, SiteBridge];
    // Signed in on bridge 2; the same cookie opens a window on bridge 1 (its ticket from 1).
    const other = await signIn(two.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    const viewer = await ScriptedViewer.connect(sessionFromCookie(one.url, other.cookie, other.me));
    expect((await other.request(API.signOut, { method: 'POST', body: {} })).status).toBe(200);
    await waitUntil(() => viewer.closed, 2000);
    expect(viewer.closed).toBe(true);
  });

  test("toggles, mode and Stop set on one bridge reach the others' windows and planes", async () => {
    const [one, two, three] = bridges as [SiteBridge, SiteBridge, SiteBridge];
    const window1 = await ScriptedViewer.connect(one);
    const window3 = await ScriptedViewer.connect(three);
    const plane2 = await two.desktopControl.planes.get(two.desktopId);
    const plane1 = await one.desktopControl.planes.get(one.desktopId);
    expect(plane1?.permissions().clipboard_read).toBe(false);
    // Toggles changed through bridge 2's API: in force on bridge 1 when the PUT answers (it
    // waits for the others' "applied", site/siteAcks.ts), and the window on bridge 1 is told.
    const put = await two.session.request(API.myPermissions, {
      method: 'PUT',
      body: { clipboard_read: true },
    });
    expect(put.status).toBe(200);
    expect(plane1?.permissions().clipboard_read).toBe(true);
    await window1.waitFor(
      (m) => m.type === 'permissions_changed' && m.permissions.clipboard_read,
      2000,
    );
    // Lowered to passive in the window on bridge 1: bridge 2 decides the AI's calls with it.
    window1.send({ type: 'mode_set', mode: 'passive' });
    await waitUntil(() => plane2?.mode.mode === 'passive', 2000);
    await window3.waitFor((m) => m.type === 'mode_changed' && m.mode === 'passive', 2000);
    window1.send({ type: 'mode_set', mode: 'composing' });
    await window1
      .waitFor((m) => m.type === 'approval_request', 2000)
      .then((request) =>
        window1.send({
          type: 'approval',
          request_id: (request as { request_id: string }).request_id,
          approved: true,
        }),
      );
    await waitUntil(() => plane2?.mode.mode === 'composing', 2000);
    // Stop pressed in the window on bridge 3: bridge 1's window hears it, bridge 2 goes passive.
    window3.send({ type: 'stop_pressed' });
    await window1.waitFor((m) => m.type === 'stop', 2000);
    await waitUntil(() => plane2?.mode.mode === 'passive', 2000);
    // Each bridge audits what it did, once: one Stop, not three.
    await waitUntil(async () => (await stops(one)) >= 1, 3000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await stops(one)).toBe(1);
    await window1.close();
    await window3.close();
  });

  test('a desktop removed on bridge 2 closes its windows on bridge 1', async () => {
    const [one, two] = bridges as [SiteBridge, SiteBridge];
    const made = await two.session.request(API.desktops, {
      body: {
        kind: 'guacd-rdp',
        name: 'Short-lived',
        params: { host: 'rdp.example', port: 3389, username: 'ada' },
      },
    });
    expect(made.status).toBe(201);
    const desktop = (await made.json()) as { id: string };
    const ticket = await one.session.request(API.tickets, {
      body: { socket: 'viewer', desktop: desktop.id },
    });
    expect(ticket.status).toBe(200);
    const window = await ScriptedViewer.connectWithTicket(
      one.url,
      ((await ticket.json()) as { ticket: string }).ticket,
    );
    expect(
      (await two.session.request(`${API.desktops}/${desktop.id}`, { method: 'DELETE' })).status,
    ).toBe(200);
    await waitUntil(() => window.closed, 2000);
  });

  test('the mode set in a window survives a restart of every bridge', async () => {
    const [one] = bridges as [SiteBridge];
    const window = await ScriptedViewer.connect(one);
    window.send({ type: 'mode_set', mode: 'composing' });
    await window
      .waitFor((m) => m.type === 'approval_request', 2000)
      .then((request) =>
        window.send({
          type: 'approval',
          request_id: (request as { request_id: string }).request_id,
          approved: true,
        }),
      );
    const plane1 = await one.desktopControl.planes.get(one.desktopId);
    await waitUntil(() => plane1?.mode.mode === 'composing', 2000);
    await window.close();
    // The write is queued behind the change: give it its moment, then restart them all.
    await waitUntil(
      async () => (await one.access.store.desktopPolicy.get(one.desktopId))?.mode === 'composing',
      2000,
    );
    for (const bridge of bridges) await bridge.close();
    bridges = [];
    for (const name of ['one again', 'two again', 'three again']) bridges.push(await start(name));
    for (const bridge of bridges) {
      const plane = await bridge.desktopControl.planes.get(bridge.desktopId);
      expect(plane?.mode.mode).toBe('composing');
    }
  });

  test('NATS restarted: the bridges reconnect by themselves and hear each other again', async () => {
    const [one, two] = bridges as [SiteBridge, SiteBridge];
    const plane1 = await one.desktopControl.planes.get(one.desktopId);
    const plane2 = await two.desktopControl.planes.get(two.desktopId);
    await n.restart();
    const window = await ScriptedViewer.connect(two);
    // Changed on bridge 2 while the bridges find NATS again: what NATS lost meanwhile, each
    // bridge reads again from the store once it is back (and asks the others to).
    window.send({ type: 'mode_set', mode: 'passive' });
    await waitUntil(() => plane2?.mode.mode === 'passive', 2000);
    await waitUntil(() => plane1?.mode.mode === 'passive', 10_000);
    window.send({ type: 'mode_set', mode: 'composing' });
    const request = await window.waitFor((m) => m.type === 'approval_request', 2000);
    window.send({
      type: 'approval',
      request_id: (request as { request_id: string }).request_id,
      approved: true,
    });
    await waitUntil(() => plane1?.mode.mode === 'composing', 5000);
    await window.close();
  });

  test('a message that fails its schema is dropped and logged, never acted on', async () => {
    const [one, two] = bridges as [SiteBridge, SiteBridge];
    const plane1 = await one.desktopControl.planes.get(one.desktopId);
    const before = plane1?.mode.mode;
    expect(before).not.toBe('passive');
    const intruder = await connect({ servers: n.address, token: n.token });
    const subject = one.site!.bus.subject('events');
    const from = two.site!.bus.bridgeId;
    for (const bad of [
      { type: 'stopped', from, desktopId: one.desktopId, reason: 'x', extra: 'field' },
      { type: 'stopped', from: 'not a bridge id!', desktopId: one.desktopId, reason: 'x' },
      {
        type: 'mode_changed',
        from,
        desktopId: one.desktopId,
        inChargeId: one.admin.id,
        mode: 'root',
      },
      { type: 'self_destruct', from },
    ])
      intruder.publish(subject, two.site!.bus.seal(subject, bad));
    intruder.publish(subject, new TextEncoder().encode('{not json'));
    await intruder.flush();
    await waitUntil(
      () =>
        one.log.text().split('dropped a message that failed its seal or schema').length - 1 >= 5,
      2000,
    );
    expect(plane1?.mode.mode).toBe(before);
    // A well-formed one sealed by a bridge of the site is obeyed (siteSeal.test.ts: one that is
    // not sealed with the site's key is not).
    intruder.publish(
      subject,
      two.site!.bus.seal(subject, {
        type: 'stopped',
        from,
        desktopId: one.desktopId,
        reason: 'Stop.',
      }),
    );
    await waitUntil(() => plane1?.mode.mode === 'passive', 2000);
    await intruder.close();
  });

  test('a wrong or missing NATS credential fails clearly, and the bridge does not start', async () => {
    for (const config of [
      { servers: [n.address], token: 'wrong-token-0123456789' },
      { servers: [n.address] },
    ]) {
      const keys = await SiteKeys.load(bridges[0]!.access.store.settings, 'abc123');
      const failure = await SiteBus.join({
        config,
        siteId: 'abc123',
        logger: silentLogger(),
        keys,
      }).then(
        (bus) => bus.close().then(() => 'joined'),
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(StartupError);
      expect((failure as Error).message).toMatch(/refused this bridge's credentials.*OC_NATS_URL/);
    }
    await expect(
      startSiteBridge({ name: 'intruder', databaseUrl, site: { servers: [n.address] } }),
    ).rejects.toThrow(/credentials/);
  });
});

async function initialize(bridge: SiteBridge, token: string): Promise<Response> {
  return fetch(bridge.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      origin: new URL(bridge.url).origin,
    },
    body: JSON.stringify(INITIALIZE_REQUEST),
  });
}

async function stops(bridge: SiteBridge): Promise<number> {
  await bridge.access.audit.flush();
  const entries = await bridge.access.store.audit.query({ limit: 200 });
  return entries.filter((e) => e.kind === 'stop').length;
}

describe.runIf(missing === undefined)('tool calls across the bridges of a site', () => {
  const n = nats;
  const pg = postgres;
  let databaseUrl: string;
  let one: SiteBridge;
  let two: SiteBridge;
  const LEASE_TTL_MS = 1_500;

  beforeAll(async () => {
    databaseUrl = await pg.newDatabase();
    const site = { servers: [n.address], token: n.token };
    // Autopilot: input runs without asking, so the calls below reach the window as they are.
    one = await startSiteBridge({
      name: 'window',
      databaseUrl,
      site,
      leaseTtlMs: LEASE_TTL_MS,
      initialMode: 'autopilot',
    });
    two = await startSiteBridge({
      name: 'ai',
      databaseUrl,
      site,
      leaseTtlMs: LEASE_TTL_MS,
      initialMode: 'autopilot',
    });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  /** Waits until bridge 2 sees bridge 1 holding the desktop's control window (or nobody). */
  const holderSeen = async (held: boolean): Promise<void> =>
    waitUntil(
      async () => ((await two.site!.remote.holder(two.desktopId)) !== undefined) === held,
      5000,
    );

  test('the AI on bridge 2 drives the window on bridge 1: results, errors, cancellation', async () => {
    const window = await ScriptedViewer.connect(one);
    window.on('click_at', { result: { success: true, was_confirmed: false } });
    await holderSeen(true);
    expect(await two.site!.remote.holder(two.desktopId)).toEqual({
      bridge: one.site!.bus.bridgeId,
      headless: false,
    });
    const ai = await connectClient(two, { token: TOKEN });
    const click = await callTool(ai.client, 'click_at', { x: 12, y: 34 });
    expect(click.isError).toBeFalsy();
    expect(click.structuredContent).toMatchObject({ success: true });
    expect(window.toolCalls('click_at').at(-1)?.args).toMatchObject({ x: 12, y: 34 });
    // The viewer's own error comes back with its kind and words.
    window.on('click_at', { error: { kind: 'system_error', message: 'the desktop said no' } });
    const failed = await callTool(ai.client, 'click_at', { x: 1, y: 2 });
    expect(errorOf(failed)).toMatchObject({ kind: 'system_error', message: 'the desktop said no' });
    // A call the MCP client cancels is cancelled at the window on bridge 1.
    window.on('click_at', 'ignore');
    const aborted = new AbortController();
    const pending = ai.client.callTool({ name: 'click_at', arguments: { x: 5, y: 6 } }, undefined, {
      signal: aborted.signal,
    });
    await window.waitFor((m) => m.type === 'tool_call' && m.name === 'click_at' && argX(m) === 5);
    aborted.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    await window.waitFor((m) => m.type === 'tool_cancel', 2000);
    // The cost of the trip: the same call local (AI on bridge 1) and forwarded (AI on bridge 2).
    window.on('click_at', { result: { success: true, was_confirmed: false } });
    const local = await connectClient(one, { token: TOKEN });
    // Alternating, so both see the same load on this shared machine.
    const times = { here: [] as number[], there: [] as number[] };
    for (let i = 0; i < 60; i += 1)
      for (const [where, client] of [
        ['here', local.client],
        ['there', ai.client],
      ] as const) {
        const started = performance.now();
        await callTool(client, 'click_at', { x: i, y: i });
        times[where].push(performance.now() - started);
      }
    const p50 = (list: number[]): number => list.sort((a, b) => a - b)[list.length >> 1] ?? NaN;
    const here = p50(times.here);
    const there = p50(times.there);
    console.log(
      `[site] click_at p50 over 60 calls each: local ${here.toFixed(2)} ms, through another bridge ${there.toFixed(2)} ms (+${(there - here).toFixed(2)} ms)`,
    );
    await local.client.close();
    await ai.client.close();
    await window.close();
  });

  test('a screenshot larger than NATS takes comes back as an error that says so', async () => {
    const window = await ScriptedViewer.connect(one);
    window.on('take_screenshot', { result: screenshotResult(tooLargeForNats()) });
    await holderSeen(true);
    const ai = await connectClient(two, { token: TOKEN });
    const shot = await callTool(ai.client, 'take_screenshot');
    expect(errorOf(shot).kind).toBe('system_error');
    expect(errorOf(shot).message).toMatch(/max_payload/);
    window.on('take_screenshot', { result: screenshotResult() });
    expect((await callTool(ai.client, 'take_screenshot')).isError).toBeFalsy();
    await ai.client.close();
    await window.close();
  });

  test("background captures (set_screenshot_frequency) of a desktop whose window is on bridge 1 reach the AI's session on bridge 2", async () => {
    const window = await ScriptedViewer.connect(one);
    const pixels = Buffer.from('pixels seen through bridge 1').toString('base64');
    window.on('take_screenshot', { result: screenshotResult(pixels) });
    await holderSeen(true);
    const ai = await aiWithBackgroundCaptures(two);
    const { updates } = ai;
    // The capture is asked of the window on bridge 1 and lands in the session on bridge 2.
    await waitUntil(() => updates.includes('screenshot://latest'), 5000);
    expect(window.toolCalls('take_screenshot')[0]?.args).toMatchObject({ full_screen: true });
    const read = await ai.client.readResource({ uri: 'screenshot://latest' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'image/png', blob: pixels });
    await callTool(ai.client, 'set_screenshot_frequency', { mode: 'manual' });
    await ai.client.close();
    await window.close();
  });

  test('a forged forwarded call cannot skip the person: the holder decides again', async () => {
    const window = await ScriptedViewer.connect(one);
    window.on('click_at', { result: { success: true, was_confirmed: true } });
    await holderSeen(true);
    // The person lowers the mode to assist: every click must be asked.
    window.send({ type: 'mode_set', mode: 'assist' });
    const plane = await one.desktopControl.planes.get(one.desktopId);
    await waitUntil(() => plane?.mode.mode === 'assist', 2000);
    const intruder = await connect({ servers: n.address, token: n.token });
    const subject = one.site!.bus.bridgeSubject(one.site!.bus.bridgeId, 'call');
    /** What the holder answered (sealed for the intruder's reply inbox, read with the key). */
    const reply = (msg: Msg): Promise<unknown> => sealedBody(one, msg.subject, msg.data);
    const forged = (args: unknown, tool = 'click_at') =>
      intruder.request(
        subject,
        // Sealed as a bridge of the site would: the holder still decides (siteSeal.test.ts: one
        // not sealed with the site's key is not even read).
        one.site!.bus.seal(subject, {
          type: 'call',
          from: 'bIntruder',
          callId: `c${Math.random().toString(36).slice(2)}`,
          desktopId: one.desktopId,
          tool,
          args,
          policy: 'allow',
          timeoutMs: 5000,
        }),
        { timeout: 8000 },
      );
    // Claims "allow": the holder's own plane says ask, so the window is asked (policy confirm).
    const answer = (await reply(await forged({ x: 3, y: 4 }))) as {
      ok: boolean;
    };
    expect(answer.ok).toBe(true);
    expect(window.toolCalls('click_at').at(-1)).toMatchObject({ policy: 'confirm' });
    // Arguments the tool's schema refuses never reach the window.
    const before = window.toolCalls().length;
    const bad = (await reply(await forged({ x: 'everywhere' }))) as {
      ok: boolean;
      error?: { kind: string };
    };
    expect(bad).toMatchObject({ ok: false, error: { kind: 'invalid_parameters' } });
    // In passive, a forged call is refused outright.
    window.send({ type: 'mode_set', mode: 'passive' });
    await waitUntil(() => plane?.mode.mode === 'passive', 2000);
    const denied = (await reply(await forged({ x: 1, y: 1 }))) as {
      ok: boolean;
      error?: { kind: string };
    };
    expect(denied).toMatchObject({ ok: false, error: { kind: 'permission_denied' } });
    expect(window.toolCalls().length).toBe(before);
    await intruder.close();
    // Back to autopilot for the next test (a raise: the person approves it).
    window.send({ type: 'mode_set', mode: 'autopilot' });
    const request = await window.waitFor((m) => m.type === 'approval_request', 2000);
    window.send({
      type: 'approval',
      request_id: (request as { request_id: string }).request_id,
      approved: true,
    });
    await waitUntil(() => plane?.mode.mode === 'autopilot', 2000);
    await window.close();
  });

  test("the AI's mode raise on bridge 2 is asked in the window on bridge 1", async () => {
    const window = await ScriptedViewer.connect(one);
    await holderSeen(true);
    window.send({ type: 'mode_set', mode: 'passive' });
    const plane1 = await one.desktopControl.planes.get(one.desktopId);
    const plane2 = await two.desktopControl.planes.get(two.desktopId);
    await waitUntil(() => plane1?.mode.mode === 'passive' && plane2?.mode.mode === 'passive', 2000);
    const ai = await connectClient(two, { token: TOKEN });
    const raising = callTool(ai.client, 'set_mode', { mode: 'autopilot' });
    const request = await window.waitFor((m) => m.type === 'approval_request', 5000);
    expect(request).toMatchObject({
      from_mode: 'passive',
      to_mode: 'autopilot',
      requested_by: 'ai',
    });
    window.send({
      type: 'approval',
      request_id: (request as { request_id: string }).request_id,
      approved: true,
    });
    const raised = await raising;
    expect(raised.isError).toBeFalsy();
    expect(raised.structuredContent).toMatchObject({ active_mode: 'autopilot' });
    await waitUntil(() => plane1?.mode.mode === 'autopilot', 2000);
    expect(plane2?.mode.mode).toBe('autopilot');
    await ai.client.close();
    await window.close();
  });

  test('no reachable control window: refused with the usual error, nothing reaches the desktop', async () => {
    const ai = await connectClient(two, { token: TOKEN });
    // No window anywhere.
    await holderSeen(false);
    const none = await callTool(ai.client, 'click_at', { x: 1, y: 1 });
    expect(errorOf(none).kind).toBe('viewer_unavailable');
    expect(errorOf(none).message).toMatch(/No viewer is connected|window/);
    // A window on bridge 1, whose bridge then loses the site (as if it died): its lease is left
    // until it expires, and the call sent there meanwhile gets no answer and is refused.
    const window = await ScriptedViewer.connect(one);
    window.on('click_at', { result: { success: true, was_confirmed: false } });
    await holderSeen(true);
    await one.site!.bus.nc.close();
    const gone = await callTool(ai.client, 'click_at', { x: 7, y: 7 });
    expect(errorOf(gone).kind).toBe('viewer_unavailable');
    // Refused at once ("nothing was sent"), or — when NATS still took it for the dying bridge —
    // failed by the holder probe ("went away"); either way nothing reached the window.
    expect(errorOf(gone).message).toMatch(/nothing was sent to the desktop|went away/);
    expect(window.toolCalls('click_at').filter((c) => argX(c) === 7)).toEqual([]);
    // The lease of the bridge that went away expires by itself.
    await holderSeen(false);
    await window.close();
    await ai.client.close();
  });
});

describe.runIf(missing === undefined)('limits shared by the bridges of a site', () => {
  const n = nats;
  const pg = postgres;
  let bridges: SiteBridge[] = [];

  /** A token's sessions get 4 calls in all, then one call per 1000 s. */
  const TOKEN_BUDGET = {
    all: { ratePerSecond: 0.001, burst: 4 },
    input: { ratePerSecond: 1, burst: 4 },
  };

  beforeAll(async () => {
    const databaseUrl = await pg.newDatabase();
    for (const name of ['gate one', 'gate two', 'gate three'])
      bridges.push(
        await startSiteBridge({
          name,
          databaseUrl,
          site: { servers: [n.address], token: n.token },
          sharedRateLimits: {
            token: TOKEN_BUDGET,
            person: { all: { ratePerSecond: 100, burst: 100 }, input: TOKEN_BUDGET.input },
          },
        }),
      );
  });

  test("a token's rate limit holds for its sessions on every bridge together", async () => {
    const clients = await Promise.all(
      bridges
        .slice(0, 2)
        .map(async (bridge) => (await connectClient(bridge, { token: TOKEN })).client),
    );
    // Four calls alternating between bridges 1 and 2: the token's budget, each bridge seeing two.
    for (let i = 0; i < 4; i += 1) {
      const result = await callTool(clients[i % 2]!, 'list_desktops');
      expect(result.isError).toBeFalsy();
      // Told to the other bridges before the next call (as across machines, a few ms later).
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const client of clients) {
      const refused = await callTool(client, 'list_desktops');
      expect(errorOf(refused).kind).toBe('rate_limited');
      expect(errorOf(refused).message).toMatch(/all sessions of this token/);
    }
    for (const client of clients) await client.close();
  });
  afterAll(async () => {
    for (const bridge of bridges) await bridge.close();
    bridges = [];
  });

  test("a token's MCP session cap and a person's tunnel cap count every bridge's", async () => {
    const [gateOne, gateTwo, gateThree] = bridges as [SiteBridge, SiteBridge, SiteBridge];
    const tokenKey = openKey.tokenSessions('tok_site_test');
    const here = (bridge: SiteBridge): number =>
      bridge.desktopControl.sessions.openCounts()[tokenKey] ?? 0;
    // Sessions left open by the test above count too: fill the cap, alternating bridges 1 and 2.
    let open = bridges.reduce((n, bridge) => n + here(bridge), 0);
    for (; open < MAX_SESSIONS_PER_TOKEN; open += 1)
      expect((await initialize(open % 2 === 0 ? gateOne : gateTwo, TOKEN)).status).toBe(200);
    await waitUntil(
      () => gateThree.desktopControl.sessions.elsewhere?.count(tokenKey) === MAX_SESSIONS_PER_TOKEN,
      3000,
    );
    // Bridge 3 holds none of them, yet refuses the next.
    const refused = await initialize(gateThree, TOKEN);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain(`limit ${MAX_SESSIONS_PER_TOKEN}`);
    // Desktop connections: these stand for a person's tunnels open on bridge 1 (FAKE sockets in
    // its registry: the site bridges have no desktop behind them); bridge 2 counts them.
    const admin = gateOne.admin.id;
    const fakeTunnels = Array.from({ length: MAX_TUNNELS_PER_PERSON }, () =>
      gateOne.access.sockets.add({
        personId: admin,
        sessionIdHash: 'f'.repeat(64),
        kind: 'tunnel',
        close: () => undefined,
      }),
    );
    await waitUntil(
      () =>
        gateTwo.access.sockets.elsewhere?.count(openKey.personTunnels(admin)) ===
        MAX_TUNNELS_PER_PERSON,
      3000,
    );
    const tunnel = await tryUpgrade(
      gateTwo.url,
      tunnelPath(await gateTwo.session.ticket('tunnel')),
      {
        protocol: 'guacamole',
      },
    );
    expect(tunnel.status).toBe(429);
    expect(tunnel.body).toContain(`${MAX_TUNNELS_PER_PERSON} desktop connections open`);
    for (const remove of fakeTunnels) remove();
    await waitUntil(
      () => (gateTwo.access.sockets.elsewhere?.count(openKey.personTunnels(admin)) ?? 0) === 0,
      3000,
    );
  });

  test('failed sign-ins spread over three bridges ban the address on all of them', async () => {
    const attempt = (bridge: SiteBridge, password: string): Promise<Response> =>
      fetch(new URL(API.signIn, bridge.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: new URL(bridge.url).origin },
        body: JSON.stringify({ username: ADMIN_USERNAME, password }),
      });
    // Five wrong passwords (the limit), no bridge seeing more than two of them: the fifth one,
    // on bridge 2, starts the ban (it answers 429 itself).
    const order = [0, 1, 2, 0, 1];
    for (const [i, which] of order.entries()) {
      const answer = await attempt(bridges[which]!, `wrong-password-${i}`);
      expect(answer.status).toBe(i < order.length - 1 ? 401 : 429);
      // Counted everywhere before the next guess (as across machines, a few ms later).
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // Bridge 3 saw one of them, yet refuses even the right password now, as do the others.
    for (const bridge of bridges) {
      const answer = await attempt(bridge, ADMIN_PASSWORD);
      expect(answer.status).toBe(429);
      expect(await answer.text()).toMatch(/Too many failed sign-ins/);
    }
  });
});
