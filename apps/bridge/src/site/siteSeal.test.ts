// The seal on the site's bus, attacked for real: two bridges on a real nats-server and PostgreSQL,
// and an intruder — a raw NATS client holding the site's NATS token but not its database — that
// publishes, on the real subjects, messages every schema accepts: a mode raise, Stop, a take-over
// handed back, standing permissions and toggles changed, inflated open counts, a forged forwarded
// call, and a forged control lease in the key-value store. None is obeyed: each is dropped (and
// logged) before it is read, and the effect it asks for is checked absent. A genuine sealed
// message captured off the bus and sent again (a replay) is dropped too. Listening on every
// subject, the intruder reads nothing of a forwarded call, its approval or a screenshot: the
// bytes it gets hold neither the typed text nor the PNG, which the same bytes opened with the
// site's key do. A message of an older bridge (signed, readable JSON) is refused with words
// saying all bridges must be upgraded together. The other site suites show genuine sealed
// messages working.
import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresRequired } from '../store/testing/postgres.js';
import { callTool } from '../mcp/testing/calls.js';
import { connectClient, screenshotResult, TINY_PNG_BASE64 } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { openKey } from '../limits/openElsewhere.js';
import { natsRequired } from './testing/natsServer.js';
import { broadcastWhere } from './siteBus.js';
import { FROM_AN_OLDER_BRIDGE } from './siteSeal.js';
import { badlySealed, sealedBody } from './testing/sealed.js';
import { startSiteServers } from './testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';

const { nats, postgres, missing } = await startSiteServers();

test('nats-server and PostgreSQL run the seal suite (required in CI)', (ctx) => {
  if (missing === undefined) return;
  if (natsRequired() || postgresRequired()) throw new Error(`seal tests cannot run: ${missing}`);
  ctx.skip(missing);
});

const encoder = new TextEncoder();
/** A message as anyone with the NATS credentials can write it: well-formed, not sealed. */
const unsealed = (message: unknown): Uint8Array => encoder.encode(JSON.stringify(message));
/** The same in the envelope of the bridges before the bus was encrypted (a made-up MAC). */
const olderBridges = (message: unknown): Uint8Array =>
  encoder.encode(
    JSON.stringify({ b: JSON.stringify(message), t: Date.now(), n: 'nonce', m: 'A'.repeat(43) }),
  );
/** Where `needle` occurs in `haystack`, as bytes. */
const holds = (haystack: Uint8Array, needle: Buffer): boolean =>
  Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).includes(needle);

describe.runIf(missing === undefined)("the site's bus, sealed against its NATS credentials", () => {
  const n = nats;
  let one: SiteBridge;
  let two: SiteBridge;
  let intruder: NatsConnection;

  beforeAll(async () => {
    const databaseUrl = await postgres.newDatabase();
    const site = { servers: [n.address], token: n.token };
    one = await startSiteBridge({ name: 'seal one', databaseUrl, site, initialMode: 'assist' });
    two = await startSiteBridge({ name: 'seal two', databaseUrl, site, initialMode: 'assist' });
    intruder = await connect({ servers: n.address, token: n.token });
  });
  afterAll(async () => {
    await intruder?.close();
    await two?.close();
    await one?.close();
  });

  /** How many messages `bridge` dropped as not sealed (with the site's key). */
  const refused = (bridge: SiteBridge): number =>
    bridge.log.text().split(`"error":"not sealed`).length - 1;

  test('forged broadcasts are dropped unread: mode, Stop, take-over, standing, toggles, open counts', async () => {
    const plane = await one.desktopControl.planes.get(one.desktopId);
    expect(plane?.mode.mode).toBe('assist');
    const from = two.site!.bus.bridgeId;
    const desktopId = one.desktopId;
    const tokenKey = openKey.tokenSessions('tok_site_test');
    const forged = [
      { type: 'mode_changed', from, desktopId, inChargeId: one.admin.id, mode: 'autopilot' },
      { type: 'stopped', from, desktopId, reason: 'forged' },
      { type: 'take_over', from, desktopId, on: false },
      { type: 'standing_changed', from, desktopId },
      { type: 'permissions_changed', from, personId: one.admin.id },
      { type: 'open_counts', from, counts: { [tokenKey]: 100_000 } },
    ];
    const before = refused(one);
    for (const message of forged) {
      intruder.publish(one.site!.bus.subject('events'), unsealed(message));
      intruder.publish(one.site!.bus.subject('events'), badlySealed(message));
    }
    await intruder.flush();
    await waitUntil(() => refused(one) - before === 2 * forged.length, 5000);
    expect(one.log.text()).toContain(`"error":"not sealed with the site's key"`);
    // Nothing asked for happened: the mode is still the person's, no count from elsewhere.
    expect(plane?.mode.mode).toBe('assist');
    expect(one.desktopControl.sessions.elsewhere?.count(tokenKey) ?? 0).toBe(0);
    expect(one.log.text()).not.toContain('forged');
  });

  test('a forged forwarded call is dropped unread: nothing reaches the window', async () => {
    const window = await ScriptedViewer.connect(one);
    await waitUntil(() => two.site!.remote.controlElsewhere(one.desktopId), 5000);
    const before = refused(one);
    intruder.publish(
      one.site!.bus.bridgeSubject(one.site!.bus.bridgeId, 'call'),
      badlySealed({
        type: 'call',
        from: two.site!.bus.bridgeId,
        callId: 'cforged',
        desktopId: one.desktopId,
        tool: 'click_at',
        args: { x: 3, y: 4 },
        policy: 'allow',
        timeoutMs: 5000,
      }),
    );
    await intruder.flush();
    await waitUntil(() => refused(one) > before, 5000);
    expect(window.toolCalls()).toEqual([]);
    await window.close();
    await waitUntil(() => !two.site!.remote.controlElsewhere(one.desktopId), 10_000);
  });

  test('a forged control lease in the key-value store names nobody', async () => {
    const kv = await intruder
      .jetstream()
      .views.kv(`oc_${one.site!.bus.subject('x').split('.')[1]!}_control`, { bindOnly: true });
    const key = `control.${Buffer.from(one.desktopId).toString('hex')}`;
    await kv.put(key, badlySealed({ bridge: 'bIntruder', headless: true }));
    // Read straight from the bucket: not sealed, so no holder (a call here fails closed).
    expect(await two.site!.remote.holder(one.desktopId)).toBeUndefined();
    await kv.delete(key);
  });

  test('a genuine sealed broadcast sent again (a replay) is dropped', async () => {
    const captured: Uint8Array[] = [];
    const listener = await connect({ servers: n.address, token: n.token });
    // The test (not the intruder: it cannot read them) picks the "passive" out with the key.
    listener.subscribe(one.site!.bus.subject('events'), {
      callback: (_err, msg) =>
        void sealedBody(one, broadcastWhere(msg.subject, msg.reply), msg.data).then((body) => {
          const event = body as { type: string; mode?: string };
          if (event.type === 'mode_changed' && event.mode === 'passive') captured.push(msg.data);
        }),
    });
    await listener.flush();
    const window = await ScriptedViewer.connect(one);
    const plane2 = await two.desktopControl.planes.get(two.desktopId);
    // The person lowers the mode to passive, then raises it back to assist (approved).
    window.send({ type: 'mode_set', mode: 'passive' });
    await waitUntil(() => plane2?.mode.mode === 'passive' && captured.length > 0, 5000);
    window.send({ type: 'mode_set', mode: 'assist' });
    const request = await window.waitFor((m) => m.type === 'approval_request', 5000);
    window.send({
      type: 'approval',
      request_id: (request as { request_id: string }).request_id,
      approved: true,
    });
    await waitUntil(() => plane2?.mode.mode === 'assist', 5000);
    // The captured "passive" sent again by the intruder: bridge 2 drops it as a replay.
    const replays = (): number => two.log.text().split('"error":"a replay"').length - 1;
    const before = replays();
    intruder.publish(two.site!.bus.subject('events'), captured[0]);
    await intruder.flush();
    await waitUntil(() => replays() > before, 5000);
    expect(plane2?.mode.mode).toBe('assist');
    await listener.close();
    await window.close();
  });

  test("an older bridge's message is refused with words that say to upgrade every bridge", async () => {
    const count = (): number => one.log.text().split(FROM_AN_OLDER_BRIDGE).length - 1;
    const before = count();
    const from = two.site!.bus.bridgeId;
    intruder.publish(
      one.site!.bus.subject('events'),
      olderBridges({ type: 'stopped', from, desktopId: one.desktopId, reason: 'old' }),
    );
    await intruder.flush();
    await waitUntil(() => count() > before, 5000);
  });

  test('listening on every subject, the intruder reads nothing of a call, its approval or a screenshot', async () => {
    const marker = `typed-secret-${randomBytes(8).toString('hex')}`;
    // A screenshot whose PNG carries the marker too (after its IEND: any PNG reader ignores it).
    const png = Buffer.concat([Buffer.from(TINY_PNG_BASE64, 'base64'), Buffer.from(marker)]);
    const heard: { subject: string; data: Uint8Array }[] = [];
    const listener = await connect({ servers: n.address, token: n.token });
    listener.subscribe('>', {
      callback: (_err, msg) => void heard.push({ subject: msg.subject, data: msg.data }),
    });
    /** What the bridges said, read with the site's key (as the test can, the intruder not). */
    const opened = async (): Promise<string[]> => {
      const texts: string[] = [];
      for (const { subject, data } of heard)
        await sealedBody(one, subject, data).then(
          (body) => void texts.push(JSON.stringify(body)),
          () => undefined, // key-value values (sealed for their key) and NATS's own
        );
      return texts;
    };
    const isListing = (text: string): boolean =>
      text.includes('"type":"approvals_listed"') && text.includes(marker);
    await listener.flush();
    const window = await ScriptedViewer.connect(one);
    // Assist: the window asks the person, and lists the question for their other windows (the
    // site tells every bridge), then the person says yes.
    window.on('type_text', async (call) => {
      expect(call.policy).toBe('confirm');
      window.send({
        type: 'approvals_waiting',
        requests: [{ title: `Type "${marker}"`, deadline_in_ms: 60_000, request_id: call.id }],
      });
      await waitUntil(async () => (await opened()).some(isListing), 5000);
      window.send({ type: 'approvals_waiting', requests: [] });
      return { result: { success: true, typed_length: marker.length } };
    });
    window.on('take_screenshot', { result: screenshotResult(png.toString('base64')) });
    await waitUntil(() => two.site!.remote.controlElsewhere(one.desktopId), 5000);
    // The AI on bridge 2 types on, and looks at, the desktop whose window is on bridge 1.
    const ai = await connectClient(two, { token: TOKEN });
    expect((await callTool(ai.client, 'type_text', { text: marker })).isError).toBeFalsy();
    const shot = await callTool(ai.client, 'take_screenshot');
    expect(shot.isError).toBeFalsy();
    await listener.flush();
    await ai.client.close();
    await window.close();
    await listener.close();

    const needles = {
      'the typed text': Buffer.from(marker),
      'the PNG signature': Buffer.from('89504e470d0a1a0a', 'hex'),
      'the PNG signature in base64': Buffer.from(TINY_PNG_BASE64.slice(0, 11)),
      'the screenshot in base64': Buffer.from(png.toString('base64').slice(0, 40)),
    };
    const found = Object.entries(needles)
      .filter(([, needle]) => heard.some(({ data }) => holds(data, needle)))
      .map(([name]) => name);
    expect(found).toEqual([]);
    // Not a vacuous search: the same bytes opened with the site's key hold the typed text (the
    // call and its approval listed) and the screenshot.
    const texts = await opened();
    expect(texts.some((text) => text.includes('"type":"call"') && text.includes(marker))).toBe(
      true,
    );
    expect(texts.some(isListing)).toBe(true);
    expect(texts.some((text) => text.includes(png.toString('base64')))).toBe(true);
  });
});
