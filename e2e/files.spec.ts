// File transfer in the viewer, end to end (P13 item 4), on the stack's sandboxed local desktop:
// a 50 MiB file picked with "Send files…" lands in the desktop's ~/Transfer byte-identical, with
// a progress bar that moves; a 50 MiB file the desktop makes (typed into its own xterm) is
// fetched from the Files panel into the browser's downloads byte-identical; Cancel in the middle
// of an upload leaves nothing on the desktop; a file dropped on the viewer is sent; a file over
// the limit gets the limit in words and sends nothing; and each transfer is a row of the audit.
// The browser's network is slowed (DevTools throttling) where a transfer must still be under
// way when the test looks at it.
/// <reference lib="dom" />
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, type AuditPage } from '@overlay-companion/protocol';
import type { BrowserContext, CDPSession, Page } from '@playwright/test';
import { typeInDesktop, type DesktopShell } from '../apps/bridge/src/files/testing/desktopShell.js';
import { expect, test } from './fixtures.js';
import { openViewerAt } from './support/controlPlane.js';
import { desktopFile } from './support/desktopFiles.js';
import { adminSession, signInContext } from './support/signIn.js';
import type { RunningStack } from './support/bridgeProcess.js';

test.describe.configure({ mode: 'serial' });

const MiB = 1024 * 1024;
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let stack: RunningStack;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let work: string;
let transferOnHost: string;
let shell: DesktopShell;

test.beforeAll(async ({ browser, stack: running }) => {
  stack = running;
  work = await mkdtemp(join(tmpdir(), 'oc-e2e-files-'));
  const home = desktopFile(stack.xEnv, '').onHost;
  transferOnHost = join(home, 'Transfer');
  shell = { env: stack.xEnv, homeOnHost: home };
  context = await browser.newContext({ acceptDownloads: true });
  await signInContext(context, stack);
  page = await context.newPage();
  cdp = await context.newCDPSession(page);
  await openViewerAt(page, stack, '/');
  await page.getByTestId('files-button').click();
  await expect(page.getByTestId('files-panel')).toBeVisible();
});

test.afterAll(async () => {
  await context?.close();
});

/** Slows this page's network to `bytesPerSecond` each way (0: no limit). */
async function throttle(bytesPerSecond: number): Promise<void> {
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: bytesPerSecond === 0 ? -1 : bytesPerSecond,
    uploadThroughput: bytesPerSecond === 0 ? -1 : bytesPerSecond,
  });
}

const transfer = (name: string) => page.locator(`[data-testid="transfer"][data-name="${name}"]`);

/** Every value the transfer's progress bar shows, recorded in the page as it changes. */
async function recordProgress(name: string): Promise<void> {
  await page.evaluate((wanted) => {
    const seen: number[] = [];
    (window as unknown as { progressSeen: number[] }).progressSeen = seen;
    new MutationObserver(() => {
      const bar = document.querySelector<HTMLProgressElement>(
        `[data-testid="transfer"][data-name="${wanted}"] progress`,
      );
      if (bar !== null && seen.at(-1) !== bar.value) seen.push(bar.value);
    }).observe(document.body, { subtree: true, attributes: true, childList: true });
  }, name);
}

const progressSeen = (): Promise<number[]> =>
  page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);

async function fileTransfers(): Promise<AuditPage['entries']> {
  const admin = await adminSession(stack);
  const answer = await admin.request(`${API.audit}?kind=file_transfer&limit=100`);
  return ((await answer.json()) as AuditPage).entries;
}

test('a 50 MiB file sent with "Send files…" lands in ~/Transfer byte-identical, its progress moving', async () => {
  test.setTimeout(180_000);
  const data = randomBytes(50 * MiB);
  const path = join(work, 'fifty.bin');
  await writeFile(path, data);
  await recordProgress('fifty.bin');
  await throttle(20 * MiB);
  await page.getByTestId('files-input').setInputFiles(path);
  await expect(transfer('fifty.bin')).toHaveAttribute('data-status', 'done', { timeout: 120_000 });
  await throttle(0);
  await expect(transfer('fifty.bin').getByTestId('transfer-status')).toHaveText('Sent');
  const seen = await progressSeen();
  expect(
    seen.some((v) => v > 0 && v < data.length),
    `progress values ${seen.join(', ')}`,
  ).toBe(true);
  expect(sha(await readFile(join(transferOnHost, 'fifty.bin')))).toBe(sha(data));
  await expect(page.locator('[data-testid="files-entry"][data-name="fifty.bin"]')).toBeVisible();
  await expect
    .poll(
      async () => (await fileTransfers()).find((e) => e.summary?.includes('"fifty.bin"'))?.detail,
    )
    .toContain(`sha256=${sha(data)}`);
});

test('a 50 MiB file the desktop made is fetched into the downloads byte-identical', async () => {
  test.setTimeout(180_000);
  await typeInDesktop(shell, 'head -c 52428800 /dev/urandom > ~/Transfer/made.bin');
  const onDesktop = sha(await readFile(join(transferOnHost, 'made.bin')));
  const entry = page.locator('[data-testid="files-entry"][data-name="made.bin"]');
  await expect(entry).toBeVisible({ timeout: 20_000 });
  await recordProgress('made.bin');
  await throttle(20 * MiB);
  const download = page.waitForEvent('download', { timeout: 120_000 });
  await entry.getByTestId('files-fetch').click();
  const saved = await (await download).path();
  await throttle(0);
  expect(sha(await readFile(saved))).toBe(onDesktop);
  await expect(transfer('made.bin').getByTestId('transfer-status')).toHaveText('Fetched');
  const seen = await progressSeen();
  expect(
    seen.some((v) => v > 0 && v < 50 * MiB),
    `progress values ${seen.join(', ')}`,
  ).toBe(true);
  await expect
    .poll(
      async () => (await fileTransfers()).find((e) => e.summary?.includes('"made.bin"'))?.detail,
    )
    .toContain(`sha256=${onDesktop}`);
});

test('Cancel in the middle of an upload leaves nothing on the desktop', async () => {
  test.setTimeout(120_000);
  const path = join(work, 'cancel.bin');
  await writeFile(path, randomBytes(40 * MiB));
  await recordProgress('cancel.bin');
  await throttle(2 * MiB);
  await page.getByTestId('files-input').setInputFiles(path);
  await expect.poll(async () => (await progressSeen()).some((v) => v > 0)).toBe(true);
  await transfer('cancel.bin').getByTestId('transfer-cancel').click();
  await throttle(0);
  await expect(transfer('cancel.bin')).toHaveAttribute('data-status', 'cancelled');
  await expect
    .poll(
      async () => (await fileTransfers()).find((e) => e.summary?.includes('"cancel.bin"'))?.outcome,
    )
    .toMatch(/^cancelled/);
  const left = (await readdir(transferOnHost)).filter(
    (n) => n === 'cancel.bin' || n.startsWith('.oc-upload-'),
  );
  expect(left).toEqual([]);
});

test('a file dropped on the viewer is sent to its desktop', async () => {
  const dropped = await page.evaluateHandle(() => {
    const transfer = new DataTransfer();
    transfer.items.add(
      new File(['dropped on the desktop\n'], 'dropped.txt', { type: 'text/plain' }),
    );
    return transfer;
  });
  const area = page.locator('main.app__desktop');
  await area.dispatchEvent('dragenter', { dataTransfer: dropped });
  await expect(page.getByTestId('file-drop-notice')).toContainText('Drop to send to');
  await area.dispatchEvent('dragover', { dataTransfer: dropped });
  await area.dispatchEvent('drop', { dataTransfer: dropped });
  await expect(transfer('dropped.txt')).toHaveAttribute('data-status', 'done');
  expect(await readFile(join(transferOnHost, 'dropped.txt'), 'utf8')).toBe(
    'dropped on the desktop\n',
  );
});

test('a file over the limit gets the limit in words, and nothing is sent', async () => {
  const path = join(work, 'huge.iso');
  await writeFile(path, '');
  await truncate(path, 600 * MiB); // sparse: nothing is written, the browser sees its size
  await page.getByTestId('files-input').setInputFiles(path);
  await expect(transfer('huge.iso')).toHaveAttribute('data-status', 'failed');
  await expect(transfer('huge.iso').getByTestId('transfer-error')).toContainText(
    'files of at most 512 MiB can be sent',
  );
  expect(await readdir(transferOnHost)).not.toContain('huge.iso');
  expect((await fileTransfers()).some((e) => e.summary?.includes('"huge.iso"'))).toBe(false);
});
