// Resources and subscriptions: screenshot://latest fed by periodic captures, and event
// subscriptions with events://<id> notifications and get_events. Real bridge and MCP client,
// a SCRIPTED VIEWER returning a tiny PNG and streaming UI events.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, errorOf } from './testing/calls.js';
import {
  TINY_PNG_BASE64,
  connectClient,
  screenshotResult,
  startTestBridge,
  type TestBridge,
} from './testing/fixtures.js';
import { ScriptedViewer } from './testing/scriptedViewer.js';
import { waitUntil } from './testing/wait.js';

describe('resources', () => {
  let bridge: TestBridge;
  let client: Client;
  let viewer: ScriptedViewer;
  const updates: string[] = [];

  beforeAll(async () => {
    bridge = await startTestBridge({ permissions: { read_key_events: true } });
    viewer = await ScriptedViewer.connect(bridge);
    viewer.on('take_screenshot', { result: screenshotResult() });
    ({ client } = await connectClient(bridge));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
  });
  afterAll(async () => {
    await client.close();
    await viewer.close();
    await bridge.close();
  });

  it('sends resources/updated for screenshot://latest after a periodic capture', async () => {
    await expect(client.readResource({ uri: 'screenshot://latest' })).rejects.toThrow(
      /No screenshot yet/,
    );
    await client.subscribeResource({ uri: 'screenshot://latest' });
    const set = await callTool(client, 'set_screenshot_frequency', {
      mode: 'periodic',
      interval_ms: 100,
    });
    // 100 ms is clamped to the 250 ms floor.
    expect(set.structuredContent).toEqual({ ok: true, applied_interval_ms: 250 });
    await waitUntil(() => updates.includes('screenshot://latest'), 3000);
    const capture = viewer.toolCalls('take_screenshot')[0];
    expect(capture?.args).toMatchObject({ full_screen: true, format: 'png' });
    const read = await client.readResource({ uri: 'screenshot://latest' });
    expect(read.contents[0]).toMatchObject({
      uri: 'screenshot://latest',
      mimeType: 'image/png',
      blob: TINY_PNG_BASE64,
    });
    await callTool(client, 'set_screenshot_frequency', { mode: 'manual' });
    const count = viewer.toolCalls('take_screenshot').length;
    await new Promise((r) => setTimeout(r, 400));
    expect(viewer.toolCalls('take_screenshot').length).toBeLessThanOrEqual(count + 1);
  });

  it('on_change only notifies when the pixels change', async () => {
    updates.length = 0;
    await callTool(client, 'set_screenshot_frequency', { mode: 'on_change', interval_ms: 250 });
    // Same PNG as before: several captures, no update.
    await waitUntil(() => viewer.toolCalls('take_screenshot').length >= 5, 3000);
    expect(updates).toEqual([]);
    viewer.on('take_screenshot', {
      result: screenshotResult(Buffer.from('other-pixels').toString('base64')),
    });
    await waitUntil(() => updates.includes('screenshot://latest'), 3000);
    await callTool(client, 'set_screenshot_frequency', { mode: 'manual' });
  });

  it('filters, debounces and buffers UI events per subscription, notifies, and drains with get_events', async () => {
    updates.length = 0;
    const sub = await callTool(client, 'subscribe_events', {
      events: ['mouse_click', 'key_press'],
      debounce_ms: 100,
      filter: { region: { x: 0, y: 0, width: 100, height: 100 } },
    });
    const id = (sub.structuredContent as { subscription_id: string }).subscription_id;
    await client.subscribeResource({ uri: `events://${id}` });
    const t = Date.now();
    const events = [
      { type: 'mouse_click', at: t, data: { x: 10, y: 10, button: 'left' } },
      { type: 'mouse_click', at: t + 10, data: { x: 11, y: 11, button: 'left' } }, // debounced
      { type: 'mouse_click', at: t + 200, data: { x: 500, y: 500, button: 'left' } }, // outside
      { type: 'mouse_move', at: t + 300, data: { x: 1, y: 1 } }, // not subscribed
      { type: 'key_press', at: t + 400, data: { key: 'a', keysym: 97 } },
    ];
    for (const event of events) viewer.send({ type: 'event', event });
    await waitUntil(() => updates.includes(`events://${id}`), 3000);
    const drained = await callTool(client, 'get_events', { subscription_id: id });
    expect(drained.structuredContent).toEqual({ events: [events[0], events[4]], dropped: 0 });
    const again = await callTool(client, 'get_events', { subscription_id: id });
    expect(again.structuredContent).toEqual({ events: [], dropped: 0 });
    expect(
      (await callTool(client, 'unsubscribe_events', { subscription_id: id })).structuredContent,
    ).toEqual({ ok: true, unsubscribed: true });
    expect(errorOf(await callTool(client, 'get_events', { subscription_id: id })).kind).toBe(
      'invalid_parameters',
    );
  });

  it('refuses to subscribe to an unknown resource', async () => {
    await expect(client.subscribeResource({ uri: 'events://nope' })).rejects.toThrow(
      /Cannot subscribe/,
    );
  });
});
