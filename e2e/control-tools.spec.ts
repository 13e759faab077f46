// The rest of the tools end to end, in autopilot (the person picked it, so nothing asks):
// typing and key combos into the desktop's xterm (checked by the file the shell writes),
// screenshots (sizes, formats, overlays composited, decoded with sharp), the clipboard both
// ways (checked with xclip), drags and scrolls (checked by xev), wait_for_screen, and a
// second window that mirrors the overlay store. Pages are signed in as the stack's admin, who
// turns clipboard reading on for the test that needs it (it starts off).
import { desktopFile } from './support/desktopFiles.js';
import { randomUUID } from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import sharp from 'sharp';
import { expect, test } from './fixtures.js';
import {
  callTool,
  connectMcp,
  openControlViewer,
  startXev,
  viewerRole,
} from './support/controlPlane.js';
import { setPermissions } from './support/signIn.js';
import { screenSize, windowRect } from './support/xdesktop.js';
import { paintedCount, paintedOverlay } from './support/overlays.js';
import { captureRoot, compareRgba } from '../packages/gateway/src/testing/desktopCapture.js';

const run = promisify(execFile);

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
  return outcome;
}

test('type_text and press_key reach the xterm', async ({ stack }) => {
  const { inDesktop: file, onHost } = desktopFile(stack.xEnv, `oc-e2e-typed-${randomUUID()}`);
  try {
    const xterm = await windowRect(stack.xEnv, 'xterm');
    await ok('click_at', { x: xterm.x + xterm.width / 2, y: xterm.y + xterm.height / 2 });
    await ok('type_text', { text: 'garbage that ctrl+u removes', typing_speed_wpm: 1000 });
    expect((await ok('press_key', { keys: 'ctrl+u' })).structured).toEqual({
      success: true,
      keysyms: [0xffe3, 0x75],
    });
    const typed = await ok('type_text', {
      text: `echo typed-ok > ${file}`,
      typing_speed_wpm: 1000,
    });
    expect(typed.structured).toMatchObject({
      success: true,
      typed_length: `echo typed-ok > ${file}`.length,
    });
    await ok('press_key', { keys: 'Return' });
    await expect
      .poll(() => readFile(onHost, 'utf8').catch(() => null), { timeout: 10_000 })
      .toBe('typed-ok\n');
  } finally {
    await rm(onHost, { force: true });
  }
});

test('take_screenshot returns the sizes and formats asked for, with overlays when asked', async ({
  stack,
}) => {
  const desktop = await screenSize(stack.xEnv);
  const call = async (args: Record<string, unknown>) => {
    const result = await mcp.callTool({ name: 'take_screenshot', arguments: args });
    expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
    const image = (
      result.content as Array<{ type: string; data?: string; mimeType?: string }>
    ).find((c) => c.type === 'image');
    const buffer = Buffer.from(image?.data ?? '', 'base64');
    return { meta: result.structuredContent as Record<string, unknown>, image, buffer };
  };

  const full = await call({ full_screen: true });
  expect(full.meta).toMatchObject({
    width: desktop.width,
    height: desktop.height,
    region: { x: 0, y: 0, ...desktop },
    scale: 1,
    format: 'png',
    byte_length: full.buffer.length,
  });
  expect(full.image?.mimeType).toBe('image/png');
  expect(await sharp(full.buffer).metadata()).toMatchObject({
    width: desktop.width,
    height: desktop.height,
    format: 'png',
  });

  const small = await call({
    region: { x: 10, y: 20, width: 400, height: 200 },
    scale: 0.5,
    format: 'jpeg',
    quality: 70,
  });
  expect(small.meta).toMatchObject({
    width: 200,
    height: 100,
    region: { x: 10, y: 20, width: 400, height: 200 },
    format: 'jpeg',
  });
  expect(await sharp(small.buffer).metadata()).toMatchObject({
    width: 200,
    height: 100,
    format: 'jpeg',
  });

  const capped = await call({ full_screen: true, max_dimension: 320 });
  expect(capped.meta).toMatchObject({ width: 320, scale: 320 / desktop.width });

  // An opaque blue overlay in the bottom-left corner (bare desktop background there).
  const area = { x: 10, y: desktop.height - 60, width: 50, height: 40 };
  await ok('draw_overlay', { ...area, color: '#0000ff', opacity: 1 });
  const inner = { x: area.x + 10, y: area.y + 10, width: 30, height: 20 };
  const mean = async (buffer: Buffer) =>
    (await sharp(buffer).stats()).channels.map((c) => Math.round(c.mean));
  const withOverlays = await call({ region: inner, include_overlays: true });
  expect((await mean(withOverlays.buffer)).slice(0, 3)).toEqual([0, 0, 255]);
  const without = await call({ region: inner });
  expect((await mean(without.buffer))[2]).toBeLessThan(200);

  // A label is the layer's tag, AI badge included (labelCanvas.ts), not a tag of its own look.
  const labelled = { x: 200, y: 200, width: 200, height: 60 };
  await ok('draw_overlay', { ...labelled, color: '#00aa00', label: 'Save the invoice' });
  const badgePixels = async (buffer: Buffer) => {
    const { data, info } = await sharp(buffer).raw().toBuffer({ resolveWithObject: true });
    let count = 0;
    for (let i = 0; i < data.length; i += info.channels) {
      if (data[i] === 124 && data[i + 1] === 58 && data[i + 2] === 237) count++; // --ai-mark
    }
    return count;
  };
  const around = { x: 150, y: 130, width: 320, height: 160 };
  expect(
    await badgePixels((await call({ region: around, include_overlays: true })).buffer),
  ).toBeGreaterThan(20);
  expect(await badgePixels((await call({ region: around })).buffer)).toBe(0);
  await ok('clear_overlays', {});
});

test('a full-screen take_screenshot equals the X server pixels (xwd -root)', async ({ stack }) => {
  const desktop = await screenSize(stack.xEnv);
  // Park the pointer where the viewer put it: Xvnc then leaves it out of the framebuffer (the
  // viewer draws its own cursor), so both pictures show the same desktop.
  await ok('mouse_move', { x: desktop.width - 1, y: desktop.height - 1 });
  await ok('wait_for_screen', { until: 'stable', stable_ms: 500, timeout_ms: 10_000 });
  const result = await mcp.callTool({
    name: 'take_screenshot',
    arguments: { full_screen: true, format: 'png' },
  });
  const image = (result.content as Array<{ type: string; data?: string }>).find(
    (c) => c.type === 'image',
  );
  const shot = await sharp(Buffer.from(image?.data ?? '', 'base64'))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const x = await captureRoot(stack.xEnv);
  expect([shot.info.width, shot.info.height]).toEqual([x.width, x.height]);
  const { mismatches } = compareRgba(x, {
    width: shot.info.width,
    height: shot.info.height,
    rgba: shot.data,
  });
  expect(mismatches, 'pixels that differ between take_screenshot and xwd -root').toBe(0);
});

test('the clipboard goes both ways between the AI and the desktop, reading once allowed', async ({
  stack,
}) => {
  const toDesktop = `from-ai-${randomUUID()}`;
  expect((await ok('set_clipboard', { text: toDesktop })).structured).toEqual({ ok: true });
  const xclipOut = async () =>
    (
      await run('xclip', ['-selection', 'clipboard', '-o'], {
        env: stack.xEnv,
        timeout: 5_000,
      }).catch(() => ({ stdout: '' }))
    ).stdout;
  await expect.poll(xclipOut, { timeout: 10_000 }).toBe(toDesktop);

  const fromDesktop = `from-desktop-${randomUUID()}`;
  // xclip keeps serving the selection in the background until someone else owns it; the
  // set_clipboard at the end takes it back, which ends that xclip.
  const xclip = spawn('xclip', ['-selection', 'clipboard', '-i'], {
    env: stack.xEnv,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  xclip.stdin.end(fromDesktop);
  // Reading the clipboard is off until the person turns it on, and the refusal says which switch.
  const refused = await callTool(mcp, 'get_clipboard', {});
  expect(refused.isError).toBe(true);
  expect(refused.text).toMatch(/^permission_denied: .*Let the AI read the clipboard/);
  await setPermissions(stack, { clipboard_read: true });
  try {
    await expect
      .poll(async () => (await callTool(mcp, 'get_clipboard', {})).structured, {
        timeout: 10_000,
      })
      .toEqual({ text: fromDesktop, available: true });
  } finally {
    await setPermissions(stack, { clipboard_read: false });
  }
  await ok('set_clipboard', { text: 'done' });
});

test('drag presses at from and releases at to; scroll turns the wheel', async ({ stack }) => {
  const xev = await startXev(stack.xEnv);
  try {
    const from = { x: xev.rect.x + 20, y: xev.rect.y + 20 };
    const to = { x: xev.rect.x + 180, y: xev.rect.y + 120 };
    await ok('drag', { from, to, duration_ms: 200 });
    await expect
      .poll(() => xev.log())
      .toMatch(
        new RegExp(
          `ButtonPress[\\s\\S]*root:\\(${from.x},${from.y}\\)[\\s\\S]*button 1[\\s\\S]*ButtonRelease[\\s\\S]*root:\\(${to.x},${to.y}\\)[\\s\\S]*button 1`,
        ),
      );
    await ok('scroll', { x: to.x, y: to.y, direction: 'down', amount: 2 });
    await expect
      .poll(() => (xev.log().match(/ButtonPress[^\n]*\n[^\n]*\n[^\n]*button 5/g) ?? []).length)
      .toBe(2);
  } finally {
    xev.stop();
  }
});

test('wait_for_screen sees a window appear, then the screen settle', async ({ stack }) => {
  // A viewer just opened may still be painting its first frames, and the last test's window its
  // close: start from a quiet screen, or "changed" is satisfied by them before the window.
  await ok('wait_for_screen', { until: 'stable', stable_ms: 500, timeout_ms: 10_000 });
  const changed = callTool(mcp, 'wait_for_screen', { until: 'changed', timeout_ms: 10_000 });
  await new Promise((r) => setTimeout(r, 300));
  const xev = await startXev(stack.xEnv);
  try {
    const c = await changed;
    expect(c.structured).toMatchObject({ satisfied: true });
    // It returned because of the window, not before it appeared.
    expect(Number(c.structured?.waited_ms)).toBeGreaterThanOrEqual(250);
    const stable = await ok('wait_for_screen', {
      until: 'stable',
      stable_ms: 300,
      timeout_ms: 10_000,
    });
    expect(stable.structured).toMatchObject({ satisfied: true });
    expect(Number(stable.structured?.waited_ms)).toBeGreaterThanOrEqual(300);
  } finally {
    xev.stop();
  }
  // Nothing changes in the region of an untouched corner: "changed" times out, not an error.
  const quiet = await ok('wait_for_screen', {
    until: 'changed',
    region: { x: 0, y: 0, width: 2, height: 2 },
    timeout_ms: 500,
  });
  expect(quiet.structured).toMatchObject({ satisfied: false });
});

test('a second window mirrors the overlay store', async ({ page, stack, context }) => {
  const first = await ok('draw_overlay', {
    x: 50,
    y: 50,
    width: 100,
    height: 100,
    color: 'orange',
    label: 'before',
  });
  const mirror = await context.newPage();
  try {
    await mirror.goto(stack.url);
    await expect.poll(() => viewerRole(mirror), { timeout: 15_000 }).toBe('mirror');
    // Synced on connect: the overlay drawn before the mirror opened is there.
    await expect
      .poll(() => paintedOverlay(mirror, String(first.structured?.overlay_id)))
      .not.toBeNull();
    const second = await ok('draw_overlay', {
      x: 300,
      y: 50,
      width: 80,
      height: 60,
      color: 'teal',
      label: 'after',
    });
    const id = String(second.structured?.overlay_id);
    await expect.poll(() => paintedOverlay(mirror, id)).not.toBeNull();
    await expect.poll(() => paintedOverlay(page, id)).not.toBeNull();
    await ok('clear_overlays', {});
    await expect.poll(() => paintedCount(mirror)).toBe(0);
    await expect.poll(() => paintedCount(page)).toBe(0);
  } finally {
    await mirror.close();
  }
});
