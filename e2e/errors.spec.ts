// Bad input and broken desktops, seen from the person's side: each failure reaches the viewer as
// a clear message with its Guacamole status, and the bridge keeps serving everyone else.
// Real parts throughout — a closed port, a real Xvnc with a VNC password, a real Xvnc killed
// under an open session, and malformed instructions written on the viewer's own tunnel socket.
// The desktops here are VNC servers the bridge reaches over TCP (`--vnc`), as an external one
// would be; every page is signed in as that stack's admin first.
import {
  startLocalDesktop,
  freePort,
  type LocalDesktop,
  type TcpLocalDesktop,
} from '@overlay-companion/gateway';
import { expect, test, type Page } from '@playwright/test';
import { startStack, type RemoteStack } from './support/bridgeProcess.js';
import { signInContext } from './support/signIn.js';

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
    mcp: false,
  });
  stacks.push(stack);
  return stack;
}

async function tcpDesktop(password?: string): Promise<TcpLocalDesktop> {
  const desktop = await startLocalDesktop({
    windowManager: false,
    rfbTcp: true,
    ...(password === undefined ? {} : { password }),
  });
  desktops.push(desktop);
  return desktop;
}

/** Opens the stack's viewer in `page`, signed in as its admin. */
async function openViewer(page: Page, stack: RemoteStack): Promise<void> {
  await signInContext(page.context(), stack);
  await page.goto(stack.url);
}

const detail = (page: Page) => page.getByTestId('connection-detail');

test('an unreachable VNC host: the viewer says so, with status 519', async ({ page }) => {
  const stack = await vncStack(await freePort());
  await openViewer(page, stack);
  await expect(detail(page)).toHaveAttribute('title', /Guacamole status 519 /, { timeout: 20_000 });
  await expect(detail(page)).toContainText(/reach|running|refused/i);
});

test('a wrong VNC password: status 769, and the right password still works', async ({
  page,
  browser,
}) => {
  const desktop = await tcpDesktop('right-pw');
  const wrong = await vncStack(desktop.port, 'wrong-pw');
  await openViewer(page, wrong);
  await expect(detail(page)).toHaveAttribute('title', /Guacamole status 769 /, { timeout: 20_000 });
  await expect(detail(page)).toContainText(/password/i);

  const right = await vncStack(desktop.port, 'right-pw');
  const other = await browser.newPage();
  await openViewer(other, right);
  await expect(other.getByTestId('connection-label')).toHaveText('Connected', { timeout: 20_000 });
  await other.close();
});

test('a VNC server that dies mid-session: the viewer reports the upstream error', async ({
  page,
}) => {
  const desktop = await tcpDesktop();
  const stack = await vncStack(desktop.port);
  await openViewer(page, stack);
  await expect(page.getByTestId('connection-label')).toHaveText('Connected', { timeout: 20_000 });
  await desktop.stop();
  await expect(detail(page)).toHaveAttribute('title', /Guacamole status 515 /, { timeout: 20_000 });
});

test('malformed instructions from the browser end only that tunnel, with status 768', async ({
  page,
  browser,
}) => {
  const desktop = await tcpDesktop();
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
  await openViewer(bystander, stack);
  await openViewer(page, stack);
  for (const viewer of [page, bystander]) {
    await expect(viewer.getByTestId('connection-label')).toHaveText('Connected', {
      timeout: 20_000,
    });
  }
  await page.evaluate(() => {
    const sockets = (window as unknown as { __tunnels: WebSocket[] }).__tunnels;
    sockets.at(-1)?.send('5.mouse,x.1;');
  });
  await expect(detail(page)).toHaveAttribute('title', /Guacamole status 768 /, { timeout: 10_000 });
  // The other viewer on the same bridge is untouched.
  await expect(bystander.getByTestId('connection-label')).toHaveText('Connected');
  await bystander.close();
});
