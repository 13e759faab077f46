// A person's windows spread over the bridges of a site, for real (a token-protected nats-server
// and a PostgreSQL on loopback, three bridges in this process): one control window per site (a
// window on another bridge is a mirror until that one is gone), the approvals the control window
// lists shown on every bridge and answered from any of them (an approval answered in a window on
// bridge 3 reaches a call waiting on bridge 2 — the AI's, asked at the window on bridge 1), what
// a forged answer on the bus cannot do, overlays drawn on one bridge reaching the windows and the
// /ws/overlays feed of the others, the sign-in device cookie any bridge checks, and a bridge
// killed: its window reconnects to another with every overlay kept, and the AI's call waiting
// there fails at once (times measured and printed).
// Without nats-server or PostgreSQL the suite is skipped (site.test.ts says why, or fails in CI).
import {
  FeedMessage,
  OVERLAYS_SOCKET_PATH,
  type Overlay,
  type ToolCallMessage,
} from '@overlay-companion/protocol';
import { connect } from 'nats';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer, type Received } from '../mcp/testing/scriptedViewer.js';
import { approvalAnswerFields, type ForwardedApprovalAnswer } from './messages.js';
import { SiteKeys } from './siteKeys.js';
import { sealedBody } from './testing/sealed.js';
import { startSiteServers } from './testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';
import { overlay } from './testing/overlays.js';
import { argX } from './testing/relayedArgs.js';

const { nats, postgres, missing } = await startSiteServers();

/**
 * The control window's part in an approval, as the viewer plays it: a click to confirm is listed
 * (approvals_waiting, with its request id) and settled by the answer another window gives
 * (approval_answer relayed here): done when approved, denied otherwise.
 */
function askInOtherWindows(window: ScriptedViewer) {
  return async (call: ToolCallMessage) => {
    if (call.policy !== 'confirm') return { result: { success: true, was_confirmed: false } };
    window.send({
      type: 'approvals_waiting',
      requests: [
        { title: 'Click with the left button', deadline_in_ms: 60_000, request_id: call.id },
      ],
    });
    const answer = (await window.waitFor(
      (m) =>
        (m as { type: string }).type === 'approval_answer' &&
        (m as { request_id?: string }).request_id === call.id,
      30_000,
    )) as unknown as { approved: boolean };
    window.send({ type: 'approvals_waiting', requests: [] });
    return answer.approved
      ? { result: { success: true, was_confirmed: true } }
      : { error: { kind: 'permission_denied', message: 'The person denied it.' } };
  };
}

const isControlHello = (m: Received): boolean => m.type === 'hello' && m.role === 'control';

describe.runIf(missing === undefined)("a person's windows on three bridges of a site", () => {
  const n = nats;
  const pg = postgres;
  let databaseUrl: string;
  let one: SiteBridge;
  let two: SiteBridge;
  let three: SiteBridge;

  beforeAll(async () => {
    databaseUrl = await pg.newDatabase();
    const site = { servers: [n.address], token: n.token };
    // Assist: every click is asked of the person.
    one = await startSiteBridge({ name: 'w one', databaseUrl, site, initialMode: 'assist' });
    two = await startSiteBridge({ name: 'w two', databaseUrl, site, initialMode: 'assist' });
    three = await startSiteBridge({ name: 'w three', databaseUrl, site, initialMode: 'assist' });
  });
  afterAll(async () => {
    for (const bridge of [three, two, one]) await bridge?.close();
  });
  // A failed test leaves no window behind to take the next one's control role.
  const opened: ScriptedViewer[] = [];
  const open = async (bridge: SiteBridge): Promise<ScriptedViewer> => {
    const window = await ScriptedViewer.connect(bridge);
    opened.push(window);
    return window;
  };
  afterEach(async () => {
    for (const window of opened.splice(0)) await window.close();
    await waitUntil(() => !heldElsewhere(two), 5000);
  });

  const heldElsewhere = (bridge: SiteBridge): boolean =>
    bridge.site!.remote.controlElsewhere(bridge.desktopId);

  test('one control window per site: a window on another bridge is a mirror until it is gone', async () => {
    const first = await open(one);
    expect(first.hello.role).toBe('control');
    await waitUntil(() => heldElsewhere(three), 5000);
    const second = await open(three);
    expect(second.hello.role).toBe('mirror');
    // take_control there cannot make a second control window.
    second.send({ type: 'take_control' });
    await second.waitFor((m) => m.type === 'error' && /another bridge/.test(m.message), 2000);
    // The control window closes: the one on bridge 3 takes over (and its bridge the lease).
    await first.close();
    await second.waitFor(isControlHello, 5000);
    await waitUntil(() => heldElsewhere(one) && heldElsewhere(two), 5000);
    await second.close();
    await waitUntil(() => !heldElsewhere(one), 5000);
  });

  test('a call on bridge 2 that arrives before the window opening on bridge 1 is known there waits for its lease and runs', async () => {
    const ai = await connectClient(two, { token: TOKEN });
    const args = { x: 12, y: 13, width: 40, height: 20, color: 'gold' };
    // No window anywhere: after the short wait for a lease, the call fails closed as before.
    expect(errorOf(await callTool(ai.client, 'draw_overlay', args)).kind).toBe(
      'viewer_unavailable',
    );
    const ticket = await one.ticket();
    const waits = (): number => two.log.text().split('waiting for a lease').length - 1;
    const before = waits();
    const drawing = callTool(ai.client, 'draw_overlay', args);
    // The call is on bridge 2, waiting; only now does the person's window open on bridge 1.
    await waitUntil(() => waits() > before, 5000);
    const window = await ScriptedViewer.connectWithTicket(one.url, ticket);
    opened.push(window);
    expect(window.hello.role).toBe('control');
    const call = (await window.waitFor(
      (m) => m.type === 'tool_call' && m.name === 'draw_overlay',
      5000,
    )) as ToolCallMessage;
    window.send({
      type: 'tool_result',
      id: call.id,
      result: {
        overlay_id: 'ov_late',
        bounds: { x: 12, y: 13, width: 40, height: 20 },
        monitor_index: 0,
      },
    });
    const result = await drawing;
    expect(result.isError).not.toBe(true);
    await ai.client.close();
  });

  test('an approval answered in a window on bridge 3 reaches a call waiting on bridge 2', async () => {
    const control = await open(one);
    control.on('click_at', askInOtherWindows(control));
    await waitUntil(() => heldElsewhere(two) && heldElsewhere(three), 5000);
    const elsewhere = await open(three);
    expect(elsewhere.hello.role).toBe('mirror');
    const ai = await connectClient(two, { token: TOKEN });
    const clicking = callTool(ai.client, 'click_at', { x: 40, y: 50 });
    // Listed by the window on bridge 1, shown in the window on bridge 3.
    const listed = await elsewhere.waitFor(
      (m) => m.type === 'approvals_waiting' && m.requests.length === 1,
      5000,
    );
    const requestId = (listed as { requests: Array<{ request_id?: string }> }).requests[0]
      ?.request_id;
    expect(requestId).toBe(control.toolCalls('click_at').at(-1)?.id);
    elsewhere.send({ type: 'approval_answer', request_id: requestId, approved: true });
    const clicked = await clicking;
    expect(clicked.isError).toBeFalsy();
    expect(clicked.structuredContent).toMatchObject({ success: true, was_confirmed: true });
    // Answered once: the same answer again is refused where it was given.
    elsewhere.send({ type: 'approval_answer', request_id: requestId, approved: false });
    await elsewhere.waitFor((m) => m.type === 'error' && /no approval/.test(m.message), 2000);
    await ai.client.close();
    await elsewhere.close();
    await control.close();
  });

  test('a forged answer on the bus approves nothing: the holder checks the signature and the person again', async () => {
    const control = await open(one);
    control.on('click_at', askInOtherWindows(control));
    await waitUntil(() => heldElsewhere(two), 5000);
    const ai = await connectClient(two, { token: TOKEN });
    const clicking = callTool(ai.client, 'click_at', { x: 60, y: 70 });
    await control.waitFor(
      (m) => m.type === 'tool_call' && m.name === 'click_at' && argX(m) === 60,
      5000,
    );
    const requestId = control.toolCalls('click_at').at(-1)!.id;
    const intruder = await connect({ servers: n.address, token: n.token });
    const subject = one.site!.bus.bridgeSubject(one.site!.bus.bridgeId, 'answer');
    // Sealed as a bridge of the site would (siteSeal.test.ts: one not sealed is not even read):
    // the approval answer's own signature is checked all the same.
    const send = async (answer: ForwardedApprovalAnswer): Promise<unknown> => {
      const reply = await intruder.request(subject, two.site!.bus.seal(subject, answer), {
        timeout: 5000,
      });
      return sealedBody(one, reply.subject, reply.data);
    };
    const unsigned: Omit<ForwardedApprovalAnswer, 'mac'> = {
      type: 'approval_answer',
      from: 'bIntruder',
      desktopId: one.desktopId,
      personId: one.admin.id,
      access: 'owner',
      requestId,
      approved: true,
    };
    // NATS credentials alone: the answer is not signed with the site's key.
    const unsignedReply = (await send({ ...unsigned, mac: 'A'.repeat(43) })) as {
      ok: boolean;
      error?: { kind: string; message: string };
    };
    expect(unsignedReply).toMatchObject({ ok: false, error: { kind: 'permission_denied' } });
    expect(unsignedReply.error?.message).toMatch(/not signed/);
    // Signed as a bridge would (the key from the database), but for someone not in charge, or
    // for a view grant: the holder decides again and refuses.
    const keys = await SiteKeys.load(
      one.access.store.settings,
      one.site!.bus.subject('x').split('.')[1]!,
    );
    const signed = (fields: typeof unsigned): ForwardedApprovalAnswer => ({
      ...fields,
      mac: keys.sign('approval answers', approvalAnswerFields(fields)),
    });
    expect(await send(signed({ ...unsigned, personId: 'p_somebody_else' }))).toMatchObject({
      ok: false,
    });
    expect(await send(signed({ ...unsigned, access: 'view' }))).toMatchObject({ ok: false });
    // Nothing reached the control window.
    expect(control.received.some((m) => (m as { type: string }).type === 'approval_answer')).toBe(
      false,
    );
    expect(one.log.text()).toContain("refused an approval answer not signed with the site's key");
    // The site's own, signed answer for the person in charge is taken — once (a replay is refused).
    const denial = signed({ ...unsigned, approved: false });
    expect(await send(denial)).toMatchObject({ ok: true, approved: false });
    expect(errorOf(await clicking).kind).toBe('permission_denied');
    const replayed = (await send(denial)) as { ok: boolean; error?: { message: string } };
    expect(replayed.ok).toBe(false);
    expect(replayed.error?.message).toMatch(/no approval/);
    await intruder.close();
    await ai.client.close();
    await control.close();
  });

  test('overlays drawn in the window on bridge 1 reach the window on bridge 3 and the feed on bridge 2', async () => {
    const control = await open(one);
    await waitUntil(() => heldElsewhere(three), 5000);
    const mirror = await open(three);
    const feed = await openFeed(two);
    control.send({ type: 'overlay_created', overlay: overlay('ov_a', 10), seq: 1 });
    control.send({ type: 'overlay_created', overlay: overlay('ov_b', 20), seq: 2 });
    control.send({ type: 'overlay_removed', overlay_id: 'ov_a', seq: 3 });
    await mirror.waitFor((m) => m.type === 'overlay_removed' && m.overlay_id === 'ov_a', 5000);
    expect(mirror.received.filter((m) => m.type === 'overlay_created')).toHaveLength(2);
    await waitUntil(() => feed.received.some((m) => m.type === 'overlay_removed'), 5000);
    expect(
      feed.received
        .filter((m) => m.type === 'overlay_created')
        .map((m) => (m as { overlay: { id: string } }).overlay.id),
    ).toEqual(['ov_a', 'ov_b']);
    expect(feed.invalid).toEqual([]);
    // A mirror's own overlay message is refused, as on one bridge, and reaches nobody.
    mirror.send({ type: 'overlay_created', overlay: overlay('ov_mirror', 1), seq: 9 });
    await mirror.waitFor((m) => m.type === 'error' && /control viewer/.test(m.message), 2000);
    // A malformed overlay change on the bus is dropped and logged.
    const intruder = await connect({ servers: n.address, token: n.token });
    intruder.publish(
      two.site!.bus.subject('events'),
      one.site!.bus.seal(two.site!.bus.subject('events'), {
        type: 'overlays_changed',
        from: 'bIntruder',
        desktopId: two.desktopId,
        change: { type: 'overlay_created', overlay: { overlay_id: 'x' }, seq: 4 },
      }),
    );
    await intruder.flush();
    await waitUntil(
      () => two.log.text().includes('dropped a message that failed its seal or schema'),
      2000,
    );
    await intruder.close();
    const plane2 = await two.desktopControl.planes.get(two.desktopId);
    expect(plane2?.hub.overlayFeed.syncMessage().overlays.map((o) => o.overlay_id)).toEqual([
      'ov_b',
    ]);
    feed.ws.close();
    // A bridge that joins now heard none of it: a window opened there gets the overlays of the
    // bridge with the control window, asked for when it opens.
    const four = await startSiteBridge({
      name: 'w four',
      databaseUrl,
      site: { servers: [n.address], token: n.token },
      initialMode: 'assist',
    });
    try {
      await waitUntil(() => heldElsewhere(four), 5000);
      const late = await ScriptedViewer.connect(four);
      expect(late.hello.role).toBe('mirror');
      const synced = await late.waitFor((m) => m.type === 'sync_state', 5000);
      expect((synced as { overlays: Overlay[] }).overlays.map((o) => o.overlay_id)).toEqual([
        'ov_b',
      ]);
      await late.close();
    } finally {
      await four.close();
    }
    control.send({ type: 'clear_overlays', seq: 4 });
    await mirror.waitFor((m) => m.type === 'clear_overlays', 5000);
    await mirror.close();
    await control.close();
  });

  test("the AI clients on one bridge and the AI's actions on another reach the windows of the third", async () => {
    await open(one);
    await waitUntil(() => heldElsewhere(three), 5000);
    const mirror = await open(three);
    const ai = await connectClient(two, { token: TOKEN });
    expect((await callTool(ai.client, 'list_desktops')).isError).toBeFalsy();
    // The session on bridge 2 is listed in the window on bridge 3.
    await mirror
      .waitFor(
        (m) => m.type === 'ai_clients' && m.clients.some((c) => c.client.name === 'bridge-test'),
        5000,
      )
      .catch((err: unknown) => {
        throw new Error('the session on bridge 2 was not listed on bridge 3', { cause: err });
      });
    // What the AI did, as the control window on bridge 1 announces it, is drawn on bridge 3.
    opened[0]!.send({
      type: 'ai_action',
      action: { kind: 'click', x: 5, y: 6, button: 'left', clicks: 1 },
    });
    await mirror
      .waitFor((m) => m.type === 'ai_action' && m.action.kind === 'click', 5000)
      .catch((err: unknown) => {
        throw new Error('the ai_action on bridge 1 was not drawn on bridge 3', { cause: err });
      });
    const lastClients = () =>
      mirror.received
        .filter((m): m is Extract<Received, { type: 'ai_clients' }> => m.type === 'ai_clients')
        .at(-1);
    const sessionsListed = (): number =>
      lastClients()?.clients.find((c) => c.client.name === 'bridge-test')?.sessions ?? 0;
    // As many as bridge 2 holds (sessions of the tests above, left open, count too).
    const plane2 = await two.desktopControl.planes.ifLoaded(two.desktopId);
    const onTwo = (): number =>
      plane2?.aiClientsHere.find((c) => c.client.name === 'bridge-test')?.sessions ?? 0;
    await waitUntil(() => onTwo() > 0 && sessionsListed() === onTwo(), 5000);
    await ai.client.close();
  });

  test('a take-over pressed in a window on bridge 3 reaches the control window on bridge 1', async () => {
    const control = await open(one);
    await waitUntil(() => heldElsewhere(three), 5000);
    const mirror = await open(three);
    mirror.send({ type: 'take_over', on: true });
    // The control window holds the AI's input while the person has the desktop.
    await control.waitFor((m) => m.type === 'take_over' && m.on, 5000);
    mirror.send({ type: 'take_over', on: false });
    await control.waitFor((m) => m.type === 'take_over' && !m.on, 5000);
  });

  test('a sign-in device cookie issued by one bridge is known to the others', () => {
    const devices = (bridge: SiteBridge) =>
      (
        bridge.access.throttle as unknown as {
          deviceCookies: {
            issue(a: string): string;
            verify(v: string, a: string): string | undefined;
          };
        }
      ).deviceCookies;
    const cookie = devices(one).issue('ada');
    expect(devices(three).verify(cookie, 'ada')).toBeDefined();
    expect(devices(three).verify(cookie, 'bob')).toBeUndefined();
  });

  test('bridge 1 killed: its window is back on bridge 3 with every overlay, the waiting call fails at once', async () => {
    const control = await open(one);
    control.on('click_at', 'ignore');
    await waitUntil(() => heldElsewhere(two) && heldElsewhere(three), 5000);
    for (let i = 1; i <= 3; i += 1)
      control.send({
        type: 'overlay_created',
        overlay: overlay(`ov_kept_${i}`, i * 10),
        seq: 10 + i,
      });
    const plane3 = await three.desktopControl.planes.get(three.desktopId);
    await waitUntil(() => plane3?.hub.overlayFeed.syncMessage().overlays.length === 3, 5000);
    const ai = await connectClient(two, { token: TOKEN });
    const clicking = callTool(ai.client, 'click_at', { x: 80, y: 90 });
    await control.waitFor(
      (m) => m.type === 'tool_call' && m.name === 'click_at' && argX(m) === 80,
      5000,
    );
    // Killed: gone from NATS without giving anything up, then its sockets drop.
    const killedAt = performance.now();
    await one.site!.bus.nc.close();
    void one.close();
    let failedAfter = NaN;
    const failed = clicking.then((result) => {
      failedAfter = performance.now() - killedAt;
      return result;
    });
    await waitUntil(() => control.closed, 5000);
    // The viewer reconnects at once, to another bridge of the site.
    const back = await open(three);
    await back.waitFor(isControlHello, 10_000);
    const controlAfter = performance.now() - killedAt;
    const sync = await back.waitFor((m) => m.type === 'sync_state', 2000);
    expect((sync as { overlays: Overlay[] }).overlays.map((o) => o.overlay_id)).toEqual([
      'ov_kept_1',
      'ov_kept_2',
      'ov_kept_3',
    ]);
    const error = errorOf(await failed);
    expect(error.kind).toBe('viewer_unavailable');
    expect(error.message).toMatch(/went away/);
    console.log(
      `[site] bridge killed → its window control again on another bridge after ${controlAfter.toFixed(0)} ms with 3/3 overlays; the AI's waiting call failed after ${failedAfter.toFixed(0)} ms`,
    );
    expect(controlAfter).toBeLessThan(3000);
    await ai.client.close();
    await back.close();
  });
});

/** A token's /ws/overlays feed on `bridge`: every frame parsed with the protocol's schema. */
async function openFeed(bridge: SiteBridge) {
  const ws = new WebSocket(new URL(OVERLAYS_SOCKET_PATH, bridge.url.replace(/^http/, 'ws')), {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  const feed = { ws, received: [] as FeedMessage[], invalid: [] as string[] };
  ws.on('message', (data: Buffer) => {
    const parsed = FeedMessage.safeParse(JSON.parse(data.toString('utf8')));
    if (parsed.success) feed.received.push(parsed.data);
    else feed.invalid.push(data.toString('utf8'));
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return feed;
}
