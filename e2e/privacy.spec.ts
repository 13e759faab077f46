// Privacy masks end to end: the person's mask (saved with their layout) is black, pixel for
// pixel, in take_screenshot, in a monitor_index capture and in screenshot://latest, while every
// other pixel equals xwd -root; the person sees it hatched; their clicks inside it are withheld
// from subscribed AIs; and nothing the AI holds (its token, its tools) can remove it. Real
// Chromium, bridge, Xvnc (painted with xsetroot so the masked area has something to hide).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { API } from '@overlay-companion/protocol';
import sharp from 'sharp';
import { expect, test } from './fixtures.js';
import {
  callTool,
  connectMcp,
  mcpToken,
  openControlViewer,
  pageOf,
} from './support/controlPlane.js';
import { clearLayout, saveLayout } from './support/layouts.js';
import { screenSize } from './support/xdesktop.js';
import { captureRoot } from '../packages/gateway/src/testing/desktopCapture.js';

const run = promisify(execFile);
let mcp: Client;

test.afterEach(async ({ stack }) => {
  await mcp.close();
  await clearLayout(stack);
  await run('xsetroot', ['-solid', 'black'], { env: stack.xEnv });
});

interface Rgba {
  width: number;
  height: number;
  rgba: Uint8Array;
}

async function decode(base64: string): Promise<Rgba> {
  const { data, info } = await sharp(Buffer.from(base64, 'base64'))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgba: data };
}

/**
 * Differences between a capture of `region` and the desktop: inside the mask every pixel must
 * be black, outside it every pixel must equal xwd -root. Returns a count and the first one.
 */
function maskedDifferences(
  shot: Rgba,
  root: Rgba,
  region: { x: number; y: number },
  mask: { x: number; y: number; width: number; height: number },
): { count: number; first?: string; hiddenNonBlack: number } {
  let count = 0;
  let first: string | undefined;
  let hiddenNonBlack = 0;
  for (let y = 0; y < shot.height; y++) {
    for (let x = 0; x < shot.width; x++) {
      const dx = region.x + x;
      const dy = region.y + y;
      const s = (y * shot.width + x) * 4;
      const r = (dy * root.width + dx) * 4;
      const inside =
        dx >= mask.x && dx < mask.x + mask.width && dy >= mask.y && dy < mask.y + mask.height;
      const want = inside ? [0, 0, 0] : [root.rgba[r], root.rgba[r + 1], root.rgba[r + 2]];
      if (inside && (root.rgba[r] ?? 0) + (root.rgba[r + 1] ?? 0) + (root.rgba[r + 2] ?? 0) > 0)
        hiddenNonBlack += 1;
      const got = [shot.rgba[s], shot.rgba[s + 1], shot.rgba[s + 2]];
      if (got.some((v, i) => v !== want[i])) {
        count += 1;
        first ??= `${dx},${dy}: ${got.join(',')} vs ${want.join(',')}`;
      }
    }
  }
  return { count, ...(first === undefined ? {} : { first }), hiddenNonBlack };
}

test('a privacy mask is black in take_screenshot, a monitor capture and screenshot://latest; the AI cannot remove it', async ({
  page,
  stack,
}) => {
  await run('xsetroot', ['-solid', '#3366cc'], { env: stack.xEnv });
  const desktop = await screenSize(stack.xEnv);
  const half = Math.floor(desktop.width / 2);
  // Below the desktop's xterm (top-left), on the blue root.
  const mask = { x: 100, y: desktop.height - 220, width: 240, height: 120, label: 'Bank' };
  await saveLayout(stack, {
    monitors: [
      { x: 0, y: 0, width: half, height: desktop.height },
      { x: half, y: 0, width: desktop.width - half, height: desktop.height },
    ],
    masks: [mask],
  });
  await openControlViewer(page, stack, 'autopilot');
  mcp = await connectMcp(stack);
  await expect(page.locator('[data-privacy-mask]')).toHaveCount(1);
  await expect(page.locator('[data-privacy-mask]')).toContainText('Bank');
  // Park the pointer where a viewer put it: Xvnc then leaves it out of the framebuffer, so the
  // screenshot and xwd -root show the same desktop (see control-tools.spec.ts).
  await callTool(mcp, 'mouse_move', { x: desktop.width - 1, y: desktop.height - 1 });

  // take_screenshot of the whole desktop, and of monitor 0 (which holds the mask).
  for (const [args, region] of [
    [{}, { x: 0, y: 0 }],
    [{ monitor_index: 0 }, { x: 0, y: 0 }],
    [{ region: { x: 50, y: mask.y - 50, width: 400, height: 200 } }, { x: 50, y: mask.y - 50 }],
  ] as const) {
    await expect
      .poll(
        async () => {
          const shot = await callTool(mcp, 'take_screenshot', args);
          const diff = maskedDifferences(
            await decode(shot.image ?? ''),
            await captureRoot(stack.xEnv),
            region,
            mask,
          );
          expect(
            diff.hiddenNonBlack,
            'the desktop shows something inside the mask',
          ).toBeGreaterThan(0);
          return diff.count === 0 ? 'exact' : `${diff.count} differ, first ${diff.first ?? ''}`;
        },
        { timeout: 15_000 },
      )
      .toBe('exact');
  }

  // The periodic capture behind screenshot://latest.
  await callTool(mcp, 'set_screenshot_frequency', { mode: 'periodic', interval_ms: 250 });
  await expect
    .poll(
      async () => {
        const read = await mcp.readResource({ uri: 'screenshot://latest' });
        const blob = read.contents.find((c) => 'blob' in c);
        if (blob === undefined || !('blob' in blob)) return 'no capture yet';
        const diff = maskedDifferences(
          await decode(blob.blob),
          await captureRoot(stack.xEnv),
          { x: 0, y: 0 },
          mask,
        );
        return diff.count === 0 ? 'exact' : `${diff.count} differ, first ${diff.first ?? ''}`;
      },
      { timeout: 15_000 },
    )
    .toBe('exact');
  await callTool(mcp, 'set_screenshot_frequency', { mode: 'manual', interval_ms: 0 });

  // The AI's token cannot change or remove the layout, and its tools leave the mask alone.
  for (const method of ['DELETE', 'PUT']) {
    const answer = await fetch(new URL(API.layout, stack.url), {
      method,
      headers: {
        Authorization: `Bearer ${mcpToken(stack)}`,
        'Content-Type': 'application/json',
      },
      ...(method === 'PUT'
        ? {
            body: JSON.stringify({ layout: { monitors: [{ x: 0, y: 0, width: 10, height: 10 }] } }),
          }
        : {}),
    });
    expect(answer.status, method).toBe(401);
  }
  await callTool(mcp, 'clear_overlays', {});
  await callTool(mcp, 'set_mode', { mode: 'passive', metadata: { masks: [] } });
  const after = await callTool(mcp, 'take_screenshot', {});
  const diff = maskedDifferences(
    await decode(after.image ?? ''),
    await captureRoot(stack.xEnv),
    { x: 0, y: 0 },
    mask,
  );
  expect(diff.count).toBe(0);
});

test("the person's clicks inside a mask are withheld from the AI; outside they are reported", async ({
  page,
  stack,
}) => {
  const desktop = await screenSize(stack.xEnv);
  const mask = { x: 900, y: 500, width: 200, height: 150 };
  await saveLayout(stack, {
    monitors: [{ x: 0, y: 0, width: desktop.width, height: desktop.height }],
    masks: [mask],
  });
  await openControlViewer(page, stack, 'passive');
  mcp = await connectMcp(stack);
  await expect(page.locator('[data-privacy-mask]')).toHaveCount(1);
  const sub = await callTool(mcp, 'subscribe_events', { events: ['mouse_click'], debounce_ms: 0 });
  const id = sub.structured?.subscription_id as string;
  // Let the viewer hear the bridge's event interest before clicking.
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          (
            window as unknown as {
              __overlayCompanion: { control(): { eventInterest: string[] | null } };
            }
          ).__overlayCompanion.control().eventInterest,
      ),
    )
    .toEqual(['mouse_click']);
  const inside = await pageOf(page, desktop.width, mask.x + 50, mask.y + 50);
  const outside = await pageOf(page, desktop.width, 1200, 100);
  // Inside first: by the time the outside click is reported, the inside one would have been.
  await page.mouse.click(inside.x, inside.y);
  await page.mouse.click(outside.x, outside.y);
  const seen: string[] = [];
  await expect
    .poll(async () => {
      const got = await callTool(mcp, 'get_events', { subscription_id: id });
      const events = (got.structured?.events ?? []) as Array<{ data: { x: number; y: number } }>;
      seen.push(...events.map((e) => `${e.data.x},${e.data.y}`));
      return seen.includes('1200,100');
    })
    .toBe(true);
  expect(seen).toEqual(['1200,100']);
});
