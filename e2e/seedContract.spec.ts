// The seed's tool specification as a client written against it would use it: its example call
// verbatim, every tool with the spec's parameter names (loose objects with keys we do not know,
// numbers with fractions) and the spec's result fields present; the seed's /ws/overlays feed seen
// by a program that follows it the seed's way. Real bridge, viewer (Chromium), Xvnc desktop and
// MCP client; effects on the desktop checked from X.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocket } from 'ws';
import { expect, test } from './fixtures.js';
import { callTool, connectMcp, mcpToken, openControlViewer } from './support/controlPlane.js';
import { setPermissions } from './support/signIn.js';
import { pointerLocation } from './support/xdesktop.js';

let mcp: Client;

test.beforeEach(async ({ page, stack }) => {
  await openControlViewer(page, stack, 'autopilot');
  mcp = await connectMcp(stack);
});

test.afterEach(async () => {
  await mcp.close();
});

async function ok(name: string, args: Record<string, unknown>) {
  const outcome = await callTool(mcp, name, args);
  expect(outcome.isError, `${name}: ${outcome.text}`).toBe(false);
  return { ...outcome, structured: outcome.structured ?? {} };
}

test("the spec's draw_overlay example works verbatim and returns its documented fields", async () => {
  // From overlay-companion-tool-spec.md, "1. draw_overlay", Example.
  const example = {
    method: 'draw_overlay',
    params: {
      x: 100,
      y: 200,
      width: 300,
      height: 50,
      color: 'blue',
      label: 'Click here',
      temporary_ms: 5000,
    },
  };
  const drawn = await ok(example.method, example.params);
  expect(drawn.structured).toEqual({
    overlay_id: expect.any(String) as unknown,
    bounds: { x: 100, y: 200, width: 300, height: 50 },
    monitor_index: 0,
  });
  const removed = await ok('remove_overlay', { overlay_id: drawn.structured.overlay_id });
  expect(removed.structured).toEqual({ removed: true, not_found: false });
  expect(
    (await ok('remove_overlay', { overlay_id: drawn.structured.overlay_id })).structured,
  ).toEqual({ removed: false, not_found: true });
});

test("every tool takes the spec's parameters and returns the spec's fields", async ({ stack }) => {
  // Optional color (default red) and fractional coordinates, rounded to the nearest pixel.
  const red = await ok('draw_overlay', { x: 10.4, y: 20.5, width: 30.6, height: 40.4 });
  expect(red.structured).toMatchObject({ bounds: { x: 10, y: 21, width: 31, height: 40 } });
  expect(typeof red.structured.monitor_index).toBe('number');

  const batch = await ok('batch_overlay', {
    overlays: [
      { x: 1, y: 1, width: 5, height: 5 },
      { x: 10.5, y: 10, width: 5, height: 5, opacity: 0.3, click_through: false, monitor_index: 0 },
    ],
    one_at_a_time: false,
  });
  expect(batch.structured.overlay_ids).toHaveLength(2);

  const shot = await ok('take_screenshot', { scale: 0.5, wait_for_stable_ms: 0 });
  for (const field of [
    'width',
    'height',
    'region',
    'monitor_index',
    'display_scale',
    'viewport_scroll',
  ])
    expect(shot.structured, field).toHaveProperty(field);
  // The seed's image_base64 is the MCP image block, never repeated as text.
  expect(shot.image?.length ?? 0).toBeGreaterThan(100);
  expect(shot.text).not.toContain(shot.image?.slice(0, 40) ?? '-');
  // full_screen defaults to true: the whole desktop.
  expect((shot.structured.region as { x: number }).x).toBe(0);
  expect(
    (await ok('take_screenshot', { scale: 2, region: { x: 0, y: 0, width: 50, height: 40 } }))
      .structured,
  ).toMatchObject({ width: 100, height: 80, scale: 2 });

  // action_timing_hint is an object (unknown keys ignored and reported); coordinates may be fractional.
  const click = await ok('click_at', {
    x: 600.6,
    y: 400.4,
    button: 'left',
    clicks: 1,
    require_user_confirmation: false,
    action_timing_hint: { delay_before_ms: 20, delay_after_ms: 20, easing: 'human' },
  });
  expect(click.structured).toMatchObject({
    success: true,
    was_confirmed: false,
    ignored: ['action_timing_hint.easing'],
  });
  expect(await pointerLocation(stack.xEnv)).toEqual({ x: 601, y: 400 });

  const typed = await ok('type_text', {
    text: ' ',
    typing_speed_wpm: 120,
    action_timing_hint: { delay_before_ms: 10 },
  });
  expect(typed.structured).toMatchObject({ success: true, typed_length: 1 });

  expect((await ok('set_clipboard', { text: 'seed' })).structured).toEqual({ ok: true });
  await setPermissions(stack, { clipboard_read: true });
  try {
    const clip = await ok('get_clipboard', {});
    expect(clip.structured).toMatchObject({ text: 'seed', available: true });
  } finally {
    await setPermissions(stack, { clipboard_read: false });
  }

  const frequency = await ok('set_screenshot_frequency', {
    mode: 'periodic',
    interval_ms: 1000.4,
    only_on_change: true,
  });
  expect(frequency.structured).toEqual({ ok: true, applied_interval_ms: 1000 });
  await ok('set_screenshot_frequency', { mode: 'manual', interval_ms: 0 });

  const sub = await ok('subscribe_events', {
    events: ['mouse_click'],
    debounce_ms: 50,
    filter: { region: { x: 0, y: 0, width: 10, height: 10 }, app: 'xterm' },
  });
  expect(sub.structured).toMatchObject({ subscribed: ['mouse_click'], ignored: ['filter.app'] });
  expect(
    (await ok('unsubscribe_events', { subscription_id: sub.structured.subscription_id }))
      .structured,
  ).toMatchObject({ ok: true });

  // An unknown top-level parameter is still refused, naming it.
  const refused = await callTool(mcp, 'draw_overlay', {
    x: 1,
    y: 1,
    width: 1,
    height: 1,
    colour: 'red',
  });
  expect(refused.isError).toBe(true);
  expect(refused.text).toContain('colour: is not a known field');

  // set_mode last: lowering applies at once; metadata keys it does not use are reported.
  const mode = await ok('set_mode', { mode: 'passive', metadata: { reason: 'done' } });
  expect(mode.structured).toMatchObject({
    ok: true,
    active_mode: 'passive',
    ignored: ['metadata.reason'],
  });
  await ok('clear_overlays', {});
});

test('a program following /ws/overlays the seed way sees overlay_created, overlay_removed and clear_overlays', async ({
  stack,
}) => {
  await ok('clear_overlays', {});
  const feed = new WebSocket(new URL('/ws/overlays', stack.url.replace(/^http/, 'ws')), {
    headers: { Authorization: `Bearer ${mcpToken(stack)}` },
  });
  const seen: Array<Record<string, unknown>> = [];
  feed.on('message', (data: Buffer) =>
    seen.push(JSON.parse(data.toString()) as Record<string, unknown>),
  );
  await new Promise((resolve) => feed.once('open', resolve));
  const drawn = await ok('draw_overlay', {
    x: 100,
    y: 200,
    width: 300,
    height: 120,
    color: '#ffcc00',
    opacity: 0.5,
  });
  await expect.poll(() => seen.find((m) => m.type === 'overlay_created')).toBeTruthy();
  const created = seen.find((m) => m.type === 'overlay_created') as {
    overlay: Record<string, unknown>;
  };
  // The seed's example message, field for field.
  expect(created.overlay).toMatchObject({
    id: drawn.structured.overlay_id,
    x: 100,
    y: 200,
    width: 300,
    height: 120,
    color: '#ffcc00',
    opacity: 0.5,
    monitor_index: 0,
  });
  expect(new Date(created.overlay.created_at as string).getTime()).toBeGreaterThan(
    Date.now() - 60_000,
  );
  await ok('remove_overlay', { overlay_id: drawn.structured.overlay_id });
  await expect
    .poll(() => seen.find((m) => m.type === 'overlay_removed'))
    .toMatchObject({ type: 'overlay_removed', overlay_id: drawn.structured.overlay_id });
  await ok('clear_overlays', {});
  await expect
    .poll(() => seen.filter((m) => m.type === 'clear_overlays').length)
    .toBeGreaterThan(0);
  feed.close();
});
