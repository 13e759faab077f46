// Attacks on the person's key presses, the most private input an AI could read: subscribing to
// key_press while "Let the AI read my key presses" is off must be refused, naming that toggle;
// and turning the toggle off while an AI is subscribed must stop key events at once — they
// never reach get_events, and the person's windows are told to stop streaming them. Real
// bridge, real MCP client, SCRIPTED VIEWER (a test ws client speaking the viewer protocol), the
// toggle changed over HTTP as the settings page does.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API, PERMISSION_LABELS, type UiEvent } from '@overlay-companion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { ofType, settle } from './testing/viewers.js';

let bridge: TestBridge | undefined;
let viewer: ScriptedViewer | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await viewer?.close();
  await bridge?.close();
  client = viewer = bridge = undefined;
});

const keyPress = (key: string): UiEvent => ({
  type: 'key_press',
  at: Date.now(),
  data: { key, keysym: key.charCodeAt(0) },
});
const click = (): UiEvent => ({
  type: 'mouse_click',
  at: Date.now(),
  data: { x: 3, y: 4, button: 'left' },
});

/** The event types the viewer was last told to stream. */
const interest = (v: ScriptedViewer): string[] | undefined =>
  ofType(v, 'event_interest').at(-1)?.events;

async function drain(c: Client, subscriptionId: string): Promise<UiEvent[]> {
  const result = await callTool(c, 'get_events', { subscription_id: subscriptionId });
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { events: UiEvent[] }).events;
}

describe("reading the person's key presses", () => {
  it('refuses subscribe_events with key_press while the toggle is off, naming the toggle', async () => {
    bridge = await startTestBridge(); // key presses start off
    viewer = await ScriptedViewer.connect(bridge);
    ({ client } = await connectClient(bridge));

    const result = await callTool(client, 'subscribe_events', {
      events: ['mouse_click', 'key_press'],
    });
    const error = errorOf(result);
    expect(error.kind).toBe('permission_denied');
    expect(error.message).toContain(PERMISSION_LABELS.read_key_events);
    expect(error.message).toContain('Let the AI read my key presses');

    // Nothing was subscribed: the window is never asked to stream keys, and keys it sends anyway
    // reach nobody.
    await settle(viewer);
    expect(ofType(viewer, 'event_interest').every((m) => !m.events.includes('key_press'))).toBe(
      true,
    );
    const forwarded: UiEvent[] = [];
    const stop = bridge.adminPlane.hub.listen({ event: (e) => forwarded.push(e) });
    viewer.send({ type: 'event', event: keyPress('s') });
    await settle(viewer);
    stop();
    expect(forwarded).toEqual([]);
  });

  it('stops key events at once when the person turns the toggle off during a live subscription', async () => {
    bridge = await startTestBridge({ permissions: { read_key_events: true } });
    viewer = await ScriptedViewer.connect(bridge);
    ({ client } = await connectClient(bridge));
    const subscribed = await callTool(client, 'subscribe_events', {
      events: ['mouse_click', 'key_press'],
    });
    expect(subscribed.isError).toBeFalsy();
    const id = (subscribed.structuredContent as { subscription_id: string }).subscription_id;
    const v = viewer;
    await waitUntil(() => interest(v)?.includes('key_press') === true);

    viewer.send({ type: 'event', event: keyPress('a') });
    await settle(viewer);
    expect((await drain(client, id)).map((e) => e.type)).toEqual(['key_press']);

    const off = await bridge.session.request(API.myPermissions, {
      method: 'PUT',
      body: { read_key_events: false },
    });
    expect(off.status).toBe(200);
    await waitUntil(() =>
      ofType(v, 'permissions_changed').some((m) => !m.permissions.read_key_events),
    );
    await waitUntil(() => interest(v) !== undefined && !interest(v)?.includes('key_press'));
    expect(interest(viewer)).toEqual(['mouse_click']);

    // A window that keeps streaming keys anyway (stale, or hostile) gets none of them through.
    viewer.send({ type: 'event', event: keyPress('p') });
    viewer.send({ type: 'event', event: click() });
    viewer.send({ type: 'event', event: keyPress('w') });
    await settle(viewer);
    expect((await drain(client, id)).map((e) => e.type)).toEqual(['mouse_click']);
  });

  it('forgets key presses collected but not yet read when the person turns the toggle off', async () => {
    bridge = await startTestBridge({ permissions: { read_key_events: true } });
    viewer = await ScriptedViewer.connect(bridge);
    ({ client } = await connectClient(bridge));
    const subscribed = await callTool(client, 'subscribe_events', {
      events: ['mouse_click', 'key_press'],
    });
    const id = (subscribed.structuredContent as { subscription_id: string }).subscription_id;
    const v = viewer;
    await waitUntil(() => interest(v)?.includes('key_press') === true);

    // The person types (say, a password) while the AI has not read yet, notices the banner, and
    // turns reading off: what the AI did not read by then must not be readable afterwards.
    for (const key of ['h', 'u', 'n', 't', 'e', 'r', '2'])
      viewer.send({ type: 'event', event: keyPress(key) });
    viewer.send({ type: 'event', event: click() });
    await settle(viewer);
    const off = await bridge.session.request(API.myPermissions, {
      method: 'PUT',
      body: { read_key_events: false },
    });
    expect(off.status).toBe(200);

    const read = await client.readResource({ uri: `events://${id}` });
    expect(JSON.stringify(read.contents)).not.toContain('key_press');
    expect((await drain(client, id)).map((e) => e.type)).toEqual(['mouse_click']);
  });
});
