// Event interest, end to end: the bridge tells every viewer which UI event types MCP
// subscriptions collect (the union over all sessions) after hello and whenever it changes, and
// drops `event` messages of any other type. Real bridge, real MCP SDK clients, SCRIPTED VIEWERS
// (test ws clients speaking the viewer side of the protocol).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { EventType, UiEvent } from '@overlay-companion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool } from './testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from './testing/fixtures.js';
import { ScriptedViewer, type Received } from './testing/scriptedViewer.js';
import { waitUntil } from './testing/wait.js';

type Interest = Extract<Received, { type: 'event_interest' }>;

function interests(viewer: ScriptedViewer): EventType[][] {
  return viewer.received
    .filter((m): m is Interest => m.type === 'event_interest')
    .map((m) => m.events);
}

/** The last interest this viewer was told (undefined when it was told none). */
function interestOf(viewer: ScriptedViewer): EventType[] | undefined {
  return interests(viewer).at(-1);
}

async function expectInterest(viewers: ScriptedViewer[], expected: EventType[]): Promise<void> {
  try {
    await waitUntil(() => viewers.every((v) => isEqual(interestOf(v), expected)));
  } catch {
    throw new Error(
      `expected interest ${JSON.stringify(expected)}, viewers were told ${JSON.stringify(viewers.map(interestOf))}`,
    );
  }
}

function isEqual(a: EventType[] | undefined, b: EventType[]): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

async function subscribe(client: Client, events: EventType[]): Promise<string> {
  const result = await callTool(client, 'subscribe_events', { events });
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { subscription_id: string }).subscription_id;
}

const keyPress = (at: number, key = 'p'): UiEvent => ({
  type: 'key_press',
  at,
  data: { key, keysym: key.charCodeAt(0) },
});
const click = (at: number): UiEvent => ({
  type: 'mouse_click',
  at,
  data: { x: 5, y: 5, button: 'left' },
});

/**
 * Sends `events`, then a frame the bridge answers (a bad one gets an `error`), and waits for
 * that answer: the socket is ordered, so every event before it has been handled by then.
 */
async function sendAndSettle(viewer: ScriptedViewer, events: UiEvent[]): Promise<void> {
  const errorsBefore = viewer.received.filter((m) => m.type === 'error').length;
  for (const event of events) viewer.send({ type: 'event', event });
  viewer.send('not json (a marker the bridge answers, so the events before it were handled)');
  await waitUntil(
    () => viewer.received.filter((m) => m.type === 'error').length > errorsBefore,
    3000,
  );
}

describe('event interest', () => {
  let bridge: TestBridge | undefined;
  const viewers: ScriptedViewer[] = [];
  const clients: Client[] = [];

  async function viewer(): Promise<ScriptedViewer> {
    if (bridge === undefined) throw new Error('start the bridge first');
    const v = await ScriptedViewer.connect(bridge);
    viewers.push(v);
    return v;
  }
  async function client(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    if (bridge === undefined) throw new Error('start the bridge first');
    const connected = await connectClient(bridge);
    clients.push(connected.client);
    return connected;
  }

  afterEach(async () => {
    for (const v of viewers.splice(0)) {
      expect(v.invalid).toEqual([]);
      await v.close();
    }
    for (const c of clients.splice(0)) await c.close();
    await bridge?.close();
    bridge = undefined;
  });

  it('tells a newly connected viewer right after hello that nobody wants events', async () => {
    bridge = await startTestBridge({ permissions: { read_key_events: true } });
    const v = await viewer();
    await expectInterest([v], []);
    expect(v.received.slice(0, 2).map((m) => m.type)).toEqual(['hello', 'event_interest']);
    expect(v.received[1]).toEqual({ type: 'event_interest', events: [] });
  });

  it('tells every viewer the union over all sessions as subscriptions come and go', async () => {
    bridge = await startTestBridge({ permissions: { read_key_events: true } });
    const control = await viewer();
    const mirror = await viewer();
    expect([control.hello.role, mirror.hello.role]).toEqual(['control', 'mirror']);
    await expectInterest([control, mirror], []);

    const a = await client();
    const keys = await subscribe(a.client, ['key_press']);
    await expectInterest([control, mirror], ['key_press']);

    const b = await client();
    await subscribe(b.client, ['mouse_click']);
    // Listed once and in protocol order, whichever session asked first.
    await expectInterest([control, mirror], ['mouse_click', 'key_press']);
    await subscribe(b.client, ['key_press', 'mouse_click']);
    await new Promise((r) => setTimeout(r, 50));
    expect(interestOf(control)).toEqual(['mouse_click', 'key_press']);

    const unsubscribed = await callTool(a.client, 'unsubscribe_events', {
      subscription_id: keys,
    });
    expect(unsubscribed.structuredContent).toEqual({ ok: true, unsubscribed: true });
    // Session b still collects key_press, so the union stays.
    await new Promise((r) => setTimeout(r, 50));
    expect(interestOf(control)).toEqual(['mouse_click', 'key_press']);

    await b.transport.terminateSession(); // DELETE /mcp
    await expectInterest([control, mirror], []);
    // Each change was told once: no repeats when the union did not change.
    expect(interests(control)).toEqual([[], ['key_press'], ['mouse_click', 'key_press'], []]);
  });

  it('shrinks the union when a subscription is dropped by unsubscribe_events', async () => {
    bridge = await startTestBridge({ permissions: { read_key_events: true } });
    const v = await viewer();
    const a = await client();
    await subscribe(a.client, ['mouse_click']);
    const keys = await subscribe(a.client, ['key_press', 'window_focus']);
    await expectInterest([v], ['mouse_click', 'key_press', 'window_focus']);
    await callTool(a.client, 'unsubscribe_events', { subscription_id: keys });
    await expectInterest([v], ['mouse_click']);
  });

  it('shrinks the union when a session expires', async () => {
    bridge = await startTestBridge({ sessionIdleMs: 200, permissions: { read_key_events: true } });
    const v = await viewer();
    const a = await client();
    await subscribe(a.client, ['screen_change']);
    await expectInterest([v], ['screen_change']);
    // No further requests: the sweeper ends the idle session.
    await waitUntil(() => bridge?.desktopControl.sessions.size === 0, 3000);
    await expectInterest([v], []);
  });

  it('tells a late-connecting viewer, and a mirror promoted to control, the current union', async () => {
    bridge = await startTestBridge({ permissions: { read_key_events: true } });
    const a = await client();
    await subscribe(a.client, ['key_press', 'mouse_move']);
    const control = await viewer();
    const mirror = await viewer();
    for (const v of [control, mirror]) {
      expect(v.received.slice(0, 2)).toEqual([
        expect.objectContaining({ type: 'hello' }),
        { type: 'event_interest', events: ['mouse_move', 'key_press'] },
      ]);
    }
    // The page forgets the interest on every hello, so promotion must repeat it.
    await control.close();
    await mirror.waitFor((m) => m.type === 'hello' && m.role === 'control');
    const promotedHello = mirror.received.findIndex(
      (m) => m.type === 'hello' && m.role === 'control',
    );
    expect(mirror.received[promotedHello + 1]).toEqual({
      type: 'event_interest',
      events: ['mouse_move', 'key_press'],
    });
  });

  it('drops events of types nobody subscribed to: they never reach a session or get_events', async () => {
    bridge = await startTestBridge({ permissions: { read_key_events: true } });
    const v = await viewer();
    const forwarded: UiEvent[] = [];
    const stopListening = bridge.adminPlane.hub.listen({ event: (e) => forwarded.push(e) });
    try {
      // Nobody subscribed: even a viewer that ignores event_interest gets nothing through.
      const t = Date.now();
      await sendAndSettle(v, [keyPress(t), click(t + 1)]);
      expect(forwarded).toEqual([]);

      const a = await client();
      const sub = await subscribe(a.client, ['mouse_click']);
      await expectInterest([v], ['mouse_click']);
      const typed = [keyPress(t + 10, 's'), keyPress(t + 11, 'e'), keyPress(t + 12, 'c')];
      await sendAndSettle(v, [typed[0]!, click(t + 20), typed[1]!, typed[2]!]);
      // The hub hands sessions only what some subscription collects (defence in depth: the
      // per-subscription filter would hide a leak from get_events alone).
      expect(forwarded).toEqual([click(t + 20)]);
      const drained = await callTool(a.client, 'get_events', { subscription_id: sub });
      expect(drained.structuredContent).toEqual({ events: [click(t + 20)], dropped: 0 });

      // Key presses sent before anyone wanted them were not kept anywhere for later.
      const late = await subscribe(a.client, ['key_press']);
      await expectInterest([v], ['mouse_click', 'key_press']);
      const none = await callTool(a.client, 'get_events', { subscription_id: late });
      expect(none.structuredContent).toEqual({ events: [], dropped: 0 });
      // Now wanted, they do arrive (the drop is by interest, not of every key press).
      await sendAndSettle(v, [keyPress(t + 30, 'x')]);
      const some = await callTool(a.client, 'get_events', { subscription_id: late });
      expect(some.structuredContent).toEqual({ events: [keyPress(t + 30, 'x')], dropped: 0 });
    } finally {
      stopListening();
    }
  });
});
