// Bad input and broken desktops, seen from the person's side: each failure reaches the viewer as
// a clear message with its Guacamole status, and the bridge keeps serving everyone else.
// Real parts throughout — a closed port, a real Xvnc with a VNC password, a real Xvnc killed
// under an open session, and malformed instructions written on the viewer's own tunnel socket.
import { startLocalDesktop, freePort, type LocalDesktop } from '@overlay-companion/gateway';
import { expect, test } from '@playwright/test';
import { startStack, type RemoteStack } from './support/bridgeProcess.js';

const stacks: RemoteStack[] = [];
const desktops: LocalDesktop[] = [];

test.afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.stop()));
  await Promise.all(desktops.splice(0).map((desktop) => desktop.stop()));
});

async function vncStack(port: number, password?: string): Promise<RemoteStack> {
  const stack = await startStack({
    source: ['--vnc', `127.0.0.1:${port}`],
    env: password === undefined ? {} : { OC_VNC_PASSWORD: password },
  });
  stacks.push(stack);
  return stack;
}

const detail = (page: import('@playwright/test').Page) => page.getByTestId('connection-detail');

test('an unreachable VNC host: the viewer says so, with status 519', async ({ page }) => {
  const stack = await vncStack(await freePort());
  await page.goto(stack.url);
  await expect(detail(page)).toContainText('519', { timeout: 20_000 });
  await expect(detail(page)).toContainText(/reach|running|refused/i);
});

test('a wrong VNC password: status 769, and the right password still works', async ({
  page,
  browser,
}) => {
  const desktop = await startLocalDesktop({ password: 'right-pw', windowManager: false });
  desktops.push(desktop);
  const wrong = await vncStack(desktop.port, 'wrong-pw');
  await page.goto(wrong.url);
  await expect(detail(page)).toContainText('769', { timeout: 20_000 });
  await expect(detail(page)).toContainText(/password/i);

  const right = await vncStack(desktop.port, 'right-pw');
  const other = await browser.newPage();
  await other.goto(right.url);
  await expect(other.getByTestId('connection-label')).toHaveText('Connected', { timeout: 20_000 });
  await other.close();
});

test('a VNC server that dies mid-session: the viewer reports the upstream error', async ({
  page,
}) => {
  const desktop = await startLocalDesktop({ windowManager: false });
  desktops.push(desktop);
  const stack = await vncStack(desktop.port);
  await page.goto(stack.url);
  await expect(page.getByTestId('connection-label')).toHaveText('Connected', { timeout: 20_000 });
  await desktop.stop();
  await expect(detail(page)).toContainText('515', { timeout: 20_000 });
});

test('malformed instructions from the browser end only that tunnel, with status 768', async ({
  page,
  browser,
}) => {
  const desktop = await startLocalDesktop({ windowManager: false });
  desktops.push(desktop);
  const stack = await vncStack(desktop.port);
  // Keep a handle on the page's tunnel socket so the test can write garbage on it.
  await page.addInitScript(() => {
    const sockets: WebSocket[] = [];
    (window as unknown as { __tunnels: WebSocket[] }).__tunnels = sockets;
    const NativeWebSocket = window.WebSocket;
    window.WebSocket = class extends NativeWebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        if (String(url).includes('/tunnel')) sockets.push(this);
      }
    };
  });
  const bystander = await browser.newPage();
  await bystander.goto(stack.url);
  await page.goto(stack.url);
  for (const viewer of [page, bystander]) {
    await expect(viewer.getByTestId('connection-label')).toHaveText('Connected', {
      timeout: 20_000,
    });
  }
  await page.evaluate(() => {
    const sockets = (window as unknown as { __tunnels: WebSocket[] }).__tunnels;
    sockets.at(-1)?.send('5.mouse,x.1;');
  });
  await expect(detail(page)).toContainText('768', { timeout: 10_000 });
  // The other viewer on the same bridge is untouched.
  await expect(bystander.getByTestId('connection-label')).toHaveText('Connected');
  await bystander.close();
});
