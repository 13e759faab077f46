// take_screenshot reuses the last image of an unchanged picture (lastShot.ts) and sends it as one
// binary frame (imageFrame.ts), and neither may cost a privacy mask: the viewer's own image — read
// from the frame it sends, before the bridge's second pass over the masks — is black inside a
// mask saved while the picture stayed the same, and shows the desktop again once the mask is
// gone. A changed desktop makes a new image. Real Chromium, bridge and Xvnc (the root painted
// with xsetroot so the masked area has something to hide).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page, WebSocket } from '@playwright/test';
import sharp from 'sharp';
import { expect, test } from './fixtures.js';
import { callTool, connectMcp, openControlViewer } from './support/controlPlane.js';
import { clearLayout, saveLayout } from './support/layouts.js';
import { screenSize } from './support/xdesktop.js';
import { captureRoot } from '../packages/gateway/src/testing/desktopCapture.js';
import type { RgbaImage } from '../packages/gateway/src/testing/xwd.js';

const run = promisify(execFile);
let mcp: Client | undefined;

test.afterEach(async ({ stack }) => {
  await mcp?.close();
  await clearLayout(stack);
  await run('xsetroot', ['-solid', 'black'], { env: stack.xEnv });
});

interface Counts {
  stored: number;
  reused: number;
}

function counts(page: Page): Promise<Counts> {
  return page.evaluate(() =>
    (
      window as unknown as { __overlayCompanion: { screenshots(): Counts } }
    ).__overlayCompanion.screenshots(),
  );
}

/** The images the viewer sent as binary screenshot answers, newest last. */
function viewerImages(page: Page): Buffer[] {
  const images: Buffer[] = [];
  page.on('websocket', (ws: WebSocket) => {
    if (!ws.url().includes('/ws/viewer')) return;
    ws.on('framesent', ({ payload }) => {
      if (typeof payload === 'string') return;
      const headerLength = payload.readUInt32BE(0);
      images.push(payload.subarray(4 + headerLength));
    });
  });
  return images;
}

/** Pixels of `png` (the whole desktop) that differ from the desktop as xwd -root shows it. */
async function differences(png: Buffer, root: RgbaImage): Promise<number> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  let count = 0;
  for (let i = 0; i < info.width * info.height; i++)
    for (let c = 0; c < 3; c++)
      if (data[i * info.channels + c] !== root.rgba[i * 4 + c]) {
        count += 1;
        break;
      }
  return count;
}

/** Non-black pixels of `png` inside `box` (image pixels). */
async function litPixels(
  png: Buffer,
  box: { x: number; y: number; width: number; height: number },
): Promise<number> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  let lit = 0;
  for (let y = box.y; y < box.y + box.height; y++)
    for (let x = box.x; x < box.x + box.width; x++) {
      const i = (y * info.width + x) * info.channels;
      if ((data[i] ?? 0) + (data[i + 1] ?? 0) + (data[i + 2] ?? 0) > 0) lit += 1;
    }
  return lit;
}

test('a reused screenshot never skips a mask drawn since, nor keeps one removed since', async ({
  page,
  stack,
}) => {
  await run('xsetroot', ['-solid', '#3366cc'], { env: stack.xEnv });
  const desktop = await screenSize(stack.xEnv);
  // Below the desktop's xterm (top-left), on the blue root.
  const mask = { x: 100, y: desktop.height - 220, width: 240, height: 120, label: 'Bank' };
  const images = viewerImages(page);
  await openControlViewer(page, stack, 'autopilot');
  mcp = await connectMcp(stack);
  const client = mcp;
  await callTool(client, 'mouse_move', { x: desktop.width - 1, y: desktop.height - 1 });
  /**
   * One take_screenshot: the AI's image, the viewer's own (its binary frame, which Playwright may
   * report a moment after the MCP answer), and whether the viewer reused its last image.
   */
  const shoot = async () => {
    const sent = images.length;
    const before = await counts(page);
    const shot = await callTool(client, 'take_screenshot', {});
    expect(shot.isError, shot.text).toBe(false);
    await expect.poll(() => images.length).toBe(sent + 1);
    const after = await counts(page);
    return {
      ai: Buffer.from(shot.image ?? '', 'base64'),
      viewer: images[sent] ?? Buffer.alloc(0),
      reused: after.reused > before.reused,
      stored: after.stored > before.stored,
    };
  };
  const all = mask.width * mask.height;

  // A still desktop: some screenshot soon reuses the one before it, which showed the blue root.
  let shot = await shoot();
  await expect.poll(async () => (shot = await shoot()).reused, { timeout: 15_000 }).toBe(true);
  expect(await litPixels(shot.viewer, mask)).toBe(all);

  // The person masks part of that same picture: the next image is a new one, black there.
  await saveLayout(stack, {
    monitors: [{ x: 0, y: 0, width: desktop.width, height: desktop.height }],
    masks: [mask],
  });
  await expect(page.locator('[data-privacy-mask]')).toHaveCount(1);
  shot = await shoot();
  expect(await litPixels(shot.viewer, mask), "the viewer's own image").toBe(0);
  expect(await litPixels(shot.ai, mask), 'the AI image').toBe(0);
  expect(shot.stored).toBe(true);

  // The same masked picture again is reused, and still black there.
  await expect.poll(async () => (shot = await shoot()).reused, { timeout: 15_000 }).toBe(true);
  expect(await litPixels(shot.viewer, mask)).toBe(0);

  // The mask goes: the picture behind it is back in the very next image.
  await clearLayout(stack);
  await expect(page.locator('[data-privacy-mask]')).toHaveCount(0);
  shot = await shoot();
  expect(await litPixels(shot.viewer, mask)).toBe(all);

  // A changed desktop is a new image: the root turns black, and the image follows xwd -root.
  await run('xsetroot', ['-solid', 'black'], { env: stack.xEnv });
  await expect
    .poll(async () => differences((await shoot()).viewer, await captureRoot(stack.xEnv)), {
      timeout: 15_000,
    })
    .toBe(0);
});
