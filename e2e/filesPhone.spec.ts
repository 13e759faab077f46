// The files panel on a phone (P13 item 4 at 390 px): the status bar has no room for its Files
// button there, so the menu has one. Opened from the menu, the menu closes and the panel fits
// the phone's width; a file picked with "Send files…" lands in the stack's desktop's ~/Transfer
// byte-identical; axe finds nothing serious with the panel open.
/// <reference lib="dom" />
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { expectNoSeriousViolations } from './support/a11y.js';
import { openViewerAt } from './support/controlPlane.js';
import { desktopFile } from './support/desktopFiles.js';
import { signInContext } from './support/signIn.js';

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let context: BrowserContext | undefined;
let work: string | undefined;

test.afterAll(async () => {
  await context?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

test('on a phone the menu opens the files panel, which fits and sends a file', async ({
  browser,
  stack,
}) => {
  context = await browser.newContext();
  await signInContext(context, stack);
  const page = await context.newPage();
  // Opened at the default size (openViewerAt waits for the desktop's size in the status bar),
  // then made phone-sized.
  await openViewerAt(page, stack, '/');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId('files-button')).toBeHidden();

  await page.getByRole('button', { name: 'Menu', exact: true }).click();
  await page.getByTestId('menu-files-button').click();
  const panel = page.getByTestId('files-panel');
  await expect(panel).toBeVisible();
  await expect(page.getByTestId('menu-files-button')).toBeHidden(); // the menu closed
  const box = await panel.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  await expectNoSeriousViolations(page, 'the viewer at 390 px with the files panel open');

  work = await mkdtemp(join(tmpdir(), 'oc-e2e-files-phone-'));
  const name = `phone-${String(Date.now())}.bin`;
  const data = randomBytes(256 * 1024);
  const path = join(work, name);
  await writeFile(path, data);
  await page.getByTestId('files-input').setInputFiles(path);
  const landed = desktopFile(stack.xEnv, join('Transfer', name)).onHost;
  await expect
    .poll(async () => sha(await readFile(landed).catch(() => Buffer.alloc(0))), {
      timeout: 30_000,
    })
    .toBe(sha(data));
  await expect(page.locator(`[data-testid="files-entry"][data-name="${name}"]`)).toBeVisible({
    timeout: 15_000,
  });
});
