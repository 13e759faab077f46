// The liveness pings between a site's bridges, attacked for real: two bridges on a real
// nats-server and PostgreSQL, and an intruder — a raw NATS client holding the site's NATS token
// but not its database — that listens at a bridge's ping subject and answers every ping at once:
// empty (as the bridges themselves answered before pings were sealed), with a pong in a seal's
// envelope whose tag it made up, and with every genuine sealed reply captured from other exchanges
// (it cannot tell a pong from another reply: they are encrypted).
// None of them says "alive": a live bridge is still heard behind them, and when the bridge that
// holds a forwarded call dies, the call waiting there still fails at once with the words saying
// so — not after its whole budget, which is what the intruder's answers bought before.
import { connect, type NatsConnection, type Subscription } from 'nats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { pino } from 'pino';
import { pingBridge } from './bridgePing.js';
import { argX } from './testing/relayedArgs.js';
import { badlySealed, sealedBody } from './testing/sealed.js';
import { startSiteServers } from './testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';

const { nats, postgres, missing } = await startSiteServers();

describe.runIf(missing === undefined)('liveness pings between bridges, sealed both ways', () => {
  const n = nats;
  let one: SiteBridge;
  let two: SiteBridge;
  let intruder: NatsConnection;
  /** Genuine sealed replies seen on the bus, pongs among them (the intruder replays them). */
  const capturedReplies: Uint8Array[] = [];
  let capturedPongs = 0;
  let answering: Subscription | undefined;

  beforeAll(async () => {
    const databaseUrl = await postgres.newDatabase();
    const site = { servers: [n.address], token: n.token };
    // Autopilot: a click runs without asking, so the forwarded call waits only on the window.
    one = await startSiteBridge({ name: 'ping one', databaseUrl, site, initialMode: 'autopilot' });
    two = await startSiteBridge({ name: 'ping two', databaseUrl, site, initialMode: 'autopilot' });
    intruder = await connect({ servers: n.address, token: n.token });
    // Every reply on the bus reaches NATS credentials: the intruder keeps them all. (The test,
    // with the key, counts the pongs among them.)
    intruder.subscribe('_INBOX.>', {
      callback: (_err, msg) => {
        capturedReplies.push(msg.data);
        void sealedBody(two, msg.subject, msg.data).then(
          (body) => void (capturedPongs += (body as { type?: string }).type === 'pong' ? 1 : 0),
          () => undefined,
        );
      },
    });
    await intruder.flush();
  });
  afterAll(async () => {
    answering?.unsubscribe();
    await intruder?.close();
    await two?.close();
    await one?.close();
  });

  /** The intruder answers every ping of `bridgeId`: empty, badly sealed, and replayed pongs. */
  const answerPingsOf = (bridgeId: string): Subscription =>
    intruder.subscribe(two.site!.bus.bridgeSubject(bridgeId, 'ping'), {
      callback: (_err, msg) => {
        if (msg.reply === undefined) return;
        intruder.publish(msg.reply, new Uint8Array());
        intruder.publish(msg.reply, badlySealed({ type: 'pong', from: bridgeId }));
        for (const reply of capturedReplies) intruder.publish(msg.reply, reply);
      },
    });

  /** How many answers to a ping `bridge` dropped (they failed their seal or schema). */
  const droppedPongs = (bridge: SiteBridge): number => dropped(bridge.log.text());
  const dropped = (text: string): number => text.split('dropped an answer to a ping').length - 1;
  /** The log of the pings this test sends itself (as bridge 2). */
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });

  test('a live bridge answers sealed; a bridge nobody listens for is gone at once', async () => {
    const bus = two.site!.bus;
    expect(await pingBridge(bus, one.site!.bus.bridgeId, 1000, logger)).toBe('alive');
    await waitUntil(() => capturedPongs > 0);
    expect(await pingBridge(bus, 'bNobodyHere', 1000, logger)).toBe('gone');
  });

  test("an intruder's answers never say alive, and do not hide the real bridge's answer", async () => {
    const bus = two.site!.bus;
    // A made-up bridge id the intruder listens for: its answers are all there is.
    answering = answerPingsOf('bDeadBridge');
    await intruder.flush();
    const before = droppedPongs(two);
    expect(await pingBridge(bus, 'bDeadBridge', 300, logger)).toBe('silent');
    // The empty answer, the made-up tag and the replayed genuine pong: each dropped (said in
    // the bus's log, whose drop warnings are bounded a minute: dropWarnings.ts).
    expect(droppedPongs(two) - before).toBeGreaterThanOrEqual(3);
    expect(two.log.text()).toContain(`"error":"not sealed with the site's key"`);
    answering.unsubscribe();
    // The intruder answers bridge 1's pings too, first: bridge 1's own sealed answer still counts.
    answering = answerPingsOf(one.site!.bus.bridgeId);
    await intruder.flush();
    expect(await pingBridge(bus, one.site!.bus.bridgeId, 1000, logger)).toBe('alive');
  });

  test('a dead holder with an intruder answering its pings: the call waiting there fails at once', async () => {
    answering?.unsubscribe();
    const window = await ScriptedViewer.connect(one);
    window.on('click_at', 'ignore');
    await waitUntil(() => two.site!.remote.controlElsewhere(two.desktopId), 5000);
    answering = answerPingsOf(one.site!.bus.bridgeId);
    await intruder.flush();
    const ai = await connectClient(two, { token: TOKEN });
    const clicking = callTool(ai.client, 'click_at', { x: 61, y: 62 });
    await window.waitFor(
      (m) => m.type === 'tool_call' && m.name === 'click_at' && argX(m) === 61,
      5000,
    );
    const before = droppedPongs(two);
    // Bridge 1 dies: gone from NATS without giving anything up. Only the intruder is left at its
    // ping subject (so NATS never says "nobody there"), answering every ping.
    await one.site!.bus.nc.close();
    void one.close();
    const error = errorOf(await clicking);
    // Before pings were sealed, the intruder's empty answers kept the call waiting its whole
    // budget and it ended as a timeout ("did not answer within").
    expect(error.kind).toBe('viewer_unavailable');
    expect(error.message).toMatch(/went away/);
    expect(droppedPongs(two)).toBeGreaterThan(before);
    await ai.client.close();
  });
});
