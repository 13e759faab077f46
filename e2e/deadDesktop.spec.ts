// A dead local desktop says so (P9 item 10), in Chromium against its own `serve --desktop local`
// (killing the desktop changes its display, so it is not the worker's shared stack): the Xvnc
// the bridge started is killed with SIGKILL → /readyz answers 503 within 2 s → the viewer keeps
// the last picture, dimmed, and says in words what stopped and that it comes back by itself →
// the desktop is started again, /readyz answers 200 and the viewer is connected again.
import { readFile, readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { expect, test } from '@playwright/test';
import { ViewerPage } from './pages/ViewerPage.js';
import { startStack, type RunningStack } from './support/bridgeProcess.js';

let stack: RunningStack;

test.beforeAll(async () => {
  stack = await startStack();
});

test.afterAll(async () => {
  await stack?.stop();
});

/**
 * The Xvnc of the desktop whose cookie file is `xauthority`: it runs sandboxed (it sees its own
 * paths), so it is the Xvnc below the bubblewrap process whose mounts name that work dir.
 */
async function xvncPid(xauthority: string): Promise<number | undefined> {
  const workDir = dirname(xauthority);
  const cmdlineOf = (pid: string) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const parentOf = async (pid: string) =>
    /^PPid:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''))?.[1];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || !(await cmdlineOf(pid)).startsWith('Xvnc\0')) continue;
    for (let up = await parentOf(pid), depth = 0; up !== undefined && depth < 6; depth++) {
      if ((await cmdlineOf(up)).includes(`${workDir}/`)) return Number(pid);
      up = await parentOf(up);
    }
  }
  return undefined;
}

test('a killed local desktop: /readyz 503 within 2 s, the viewer says so over the dimmed last picture, and both are back by themselves', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const viewer = new ViewerPage(page, stack);
  const readyz = async () => (await fetch(new URL('readyz', stack.url))).status;
  await viewer.open();
  await viewer.waitConnected();
  expect(await readyz()).toBe(200);

  const pid = await xvncPid(String(stack.xEnv.XAUTHORITY));
  expect(pid, stack.output()).toBeDefined();
  const killedAt = Date.now();
  process.kill(pid ?? 0, 'SIGKILL');
  await expect.poll(readyz, { timeout: 2_000, intervals: [50] }).toBe(503);
  expect(Date.now() - killedAt).toBeLessThan(2_000);

  // In words, over the last picture (kept, dimmed), while it is away.
  const notice = page.getByTestId('reconnect-notice');
  await expect(notice).toBeVisible({ timeout: 15_000 });
  await expect(notice).toContainText(/local desktop stopped and is being started again/i, {
    timeout: 15_000,
  });
  await expect(notice).not.toContainText(/rfb\.sock|ENOENT|\/tmp\//);
  await expect(page.locator('.remote-display__stage--stale')).toHaveCount(1);
  await expect(page.locator('.remote-display__stage canvas').first()).toBeAttached();

  // Back by itself: the bridge started the desktop again and the viewer reconnected.
  await expect.poll(readyz, { timeout: 30_000 }).toBe(200);
  await viewer.waitConnected(45_000);
  await expect(notice).toHaveCount(0);
  await expect(page.locator('.remote-display__stage--stale')).toHaveCount(0);
});
