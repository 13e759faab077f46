// The perimeter as a person's browser meets it, in Chromium against a real `serve --desktop
// local` started for this spec: another site framing the viewer gets nothing it can click;
// markup in people's names, token and client names and overlay labels is shown as text on every
// page; signing out closes that browser session's desktop and AI link at once while another
// session of the same person keeps working; and one person's approvals never reach another
// person's windows. The desktop side is checked with real X clients (xev, xdotool).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { grantAdminDesktop } from './support/grants.js';
import { PAGES } from '@overlay-companion/protocol';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage.js';
import { startStack, type RunningStack } from './support/bridgeProcess.js';
import {
  callTool,
  centre,
  connectMcp,
  connectMcpWithToken,
  openControlViewer,
  startXev,
  viewerRole,
} from './support/controlPlane.js';
import { startDecoyServer } from './support/decoyServer.js';
import {
  expectShownAsText,
  recordPolicyViolations,
  recordSocketCloses,
  socketCloses,
} from './support/pageProbes.js';
import { signInContext, signInContextAs } from './support/signIn.js';
import { pointerLocation } from './support/xdesktop.js';
import { paintedLabel, paintedOverlay, pointAt } from './support/overlays.js';

let stack: RunningStack;
/** Run after each test, last first: closes what the test opened (contexts, clients, servers). */
const cleanups: Array<() => unknown> = [];

test.beforeAll(async () => {
  stack = await startStack();
});

test.afterAll(async () => {
  await stack.stop();
});

test.afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function newContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext();
  cleanups.push(() => context.close());
  return context;
}

async function mcpClient(connect: Promise<Client>): Promise<Client> {
  const client = await connect;
  cleanups.push(() => client.close());
  return client;
}

/** Opens the viewer in an already signed-in page and waits for its desktop and AI link. */
async function openViewer(page: Page): Promise<void> {
  await page.goto(stack.url);
  await expect(page.getByTestId('connection-label')).toHaveText('Connected', { timeout: 30_000 });
  await expect(page.getByTestId('desktop-size')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('ai-link')).toHaveAttribute('data-link', 'open', {
    timeout: 15_000,
  });
}

/** Settles to true once `promise` has settled, either way. */
function settledFlag(promise: Promise<unknown>): () => boolean {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return () => settled;
}

test('the viewer framed by another origin is refused: nothing renders, a click there approves nothing', async ({
  browser,
}) => {
  const context = await newContext(browser);
  const viewer = await context.newPage();
  await openControlViewer(viewer, stack, 'assist');
  const mcp = await mcpClient(connectMcp(stack));
  const xev = await startXev(stack.xEnv);
  cleanups.push(() => xev.stop());

  // A pending approval in the person's own window: what a clickjacking page would be after.
  const target = { x: xev.rect.x + 40, y: xev.rect.y + 40 };
  const pending = callTool(mcp, 'click_at', target);
  const settled = settledFlag(pending);
  const panel = viewer.getByTestId('confirm-panel');
  await expect(panel).toContainText(`At ${target.x}, ${target.y}`);
  const approve = viewer.getByRole('button', { name: 'Approve', exact: true });
  await expect(approve).not.toHaveAttribute('aria-disabled', 'true');
  const approveAt = await centre(approve);

  // The decoy frames the viewer at the size and place of the person's window, so the framed
  // Approve button would sit exactly under the decoy's "claim your prize" spot. A second frame,
  // from a third origin that allows framing, shows that cross-origin frames do render here.
  const elsewhere = await startDecoyServer({ '/': '<!doctype html><p>decoy frame content</p>' });
  cleanups.push(() => elsewhere.close());
  const decoy = await startDecoyServer({
    '/': `<!doctype html><title>Win a prize</title>
      <style>body { margin: 0 } iframe { position: absolute; border: 0 }</style>
      <iframe id="bridge" src="${stack.url}" style="left: 0; top: 0; width: 1280px; height: 800px"></iframe>
      <iframe id="other" src="${elsewhere.url}" style="left: 0; top: 820px; width: 400px; height: 60px"></iframe>`,
  });
  cleanups.push(() => decoy.close());
  expect(new URL(decoy.url).origin).not.toBe(new URL(stack.url).origin);

  const attacker = await context.newPage();
  const sockets: string[] = [];
  attacker.on('websocket', (socket) => sockets.push(socket.url()));
  const framedAnswer = attacker.waitForResponse((response) => response.url() === stack.url);
  await attacker.goto(decoy.url, { waitUntil: 'load' });

  // The bridge answered the framed request as the signed-in person's viewer (the same-site
  // cookie went along), and said it must not be framed…
  const answer = await framedAnswer;
  expect(answer.status()).toBe(200);
  expect(answer.headers()['x-frame-options']).toBe('DENY');
  expect(answer.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  // …and Chromium shows none of it, while the other frame renders.
  await expect(attacker.frameLocator('#other').getByText('decoy frame content')).toBeVisible();
  const framed = attacker.frameLocator('#bridge');
  await expect(framed.locator('#root')).toHaveCount(0);
  await expect(framed.getByText('Overlay Companion')).toHaveCount(0);
  await expect(framed.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);

  // The person is lured into clicking where the framed Approve would be.
  await attacker.mouse.click(approveAt.x, approveAt.y);
  await attacker.waitForTimeout(1_000);
  expect(settled(), 'the click on the decoy answered the approval').toBe(false);
  await expect(panel).toContainText(`At ${target.x}, ${target.y}`);
  expect(xev.log()).not.toContain('ButtonPress');
  // The framed page never ran: it opened no desktop or AI link of its own.
  expect(sockets).toEqual([]);
  await expect(framed.getByText('Overlay Companion')).toHaveCount(0);

  // The person's own window still decides.
  await viewer.getByRole('button', { name: 'Deny', exact: true }).click();
  const result = await pending;
  expect(result.isError).toBe(true);
  expect(result.text).toMatch(/^permission_denied: /);
  expect(await pointerLocation(stack.xEnv)).not.toEqual(target);
  expect(xev.log()).not.toContain('ButtonPress');
});

test('HTML and script in names, token names and overlay labels are shown as text on every page', async ({
  browser,
}) => {
  const PERSON_NAME = '<img src=x onerror="window.__pwned=1">';
  const TOKEN_NAME = '<script>window.__pwned=2</script>';
  const CLIENT_NAME = '<svg onload=window.__pwned=4>';
  // No quotes: the audit log shows arguments as JSON, where quotes would be escaped.
  const LABEL = '<img src=x onerror=window.__pwned=3>';
  const mallory = { username: 'mallory', password: 'mallory-password-1' };

  const admin = await newContext(browser);
  await admin.addInitScript(recordPolicyViolations);
  await signInContext(admin, stack);
  const page = await admin.newPage();
  const consolePage = new ConsolePage(page, stack.url);

  await consolePage.open(PAGES.people);
  await consolePage.addPerson({ ...mallory, displayName: PERSON_NAME });
  await expectShownAsText(page, [PERSON_NAME]);

  await consolePage.navigate('Config & tokens');
  const secret = await consolePage.createToken(TOKEN_NAME);
  await expect(page.getByRole('heading', { name: `New token “${TOKEN_NAME}”` })).toBeVisible();
  await expect(consolePage.tokenRow(TOKEN_NAME)).toHaveCount(1);
  await expectShownAsText(page, [TOKEN_NAME]);

  const viewer = await admin.newPage();
  await openViewer(viewer);
  const mcp = await mcpClient(connectMcpWithToken(stack.url, secret, CLIENT_NAME));
  const drawn = await callTool(mcp, 'draw_overlay', {
    x: 60,
    y: 60,
    width: 300,
    height: 80,
    color: 'purple',
    label: LABEL,
  });
  expect(drawn.isError, drawn.text).toBe(false);
  const overlayId = String(drawn.structured?.overlay_id);
  await expect.poll(() => paintedOverlay(viewer, overlayId)).not.toBeNull();
  await expect.poll(async () => (await paintedLabel(viewer, overlayId))?.text).toBe(LABEL);
  // The tag is painted; pointed at, it is shown whole as page text.
  await pointAt(viewer, overlayId);
  await expect(viewer.locator(`[data-overlay-label="${overlayId}"]`)).toHaveText(LABEL);
  await expectShownAsText(viewer, [LABEL]);

  // Mallory signs in on the form; her own viewer and console greet her by that name, as text.
  const malloryContext = await newContext(browser);
  await malloryContext.addInitScript(recordPolicyViolations);
  const malloryPage = await malloryContext.newPage();
  await new ConsolePage(malloryPage, stack.url).signIn(mallory.username, mallory.password);
  await expect(malloryPage.getByTestId('account-name')).toHaveText(PERSON_NAME);
  await malloryPage.getByRole('button', { name: /^Account:/ }).click();
  await expect(malloryPage.getByText(`Signed in as ${PERSON_NAME} (mallory)`)).toBeVisible();
  await expectShownAsText(malloryPage, [PERSON_NAME]);
  const malloryConsole = new ConsolePage(malloryPage, stack.url);
  await malloryConsole.open(PAGES.settings);
  await expect(malloryPage.getByRole('banner')).toContainText(PERSON_NAME);
  await expectShownAsText(malloryPage, [PERSON_NAME]);

  // The admin's audit log names all of them: the person (her sign-in), the token and the
  // client (the call's actor) and the label (the call's arguments).
  await consolePage.navigate('Audit');
  await expectShownAsText(page, [PERSON_NAME, TOKEN_NAME, CLIENT_NAME, LABEL]);
  await expect(
    page.getByLabel('Person').locator('option', { hasText: `${PERSON_NAME} (mallory)` }),
  ).toHaveCount(1);

  // Each console page freshly loaded, not only after client-side navigation.
  for (const [path, texts] of [
    [PAGES.people, [PERSON_NAME]],
    [PAGES.config, [TOKEN_NAME]],
    [PAGES.audit, [PERSON_NAME, TOKEN_NAME, CLIENT_NAME, LABEL]],
  ] as const) {
    await consolePage.open(path);
    await expectShownAsText(page, texts);
  }
  // A second viewer window gets the overlays as a snapshot from the first (sync_state).
  const mirror = await admin.newPage();
  await openViewer(mirror);
  await expect.poll(async () => (await paintedLabel(mirror, overlayId))?.text).toBe(LABEL);
  await pointAt(mirror, overlayId);
  await expect(mirror.locator('.overlay-label')).toHaveText(LABEL);
  await expectShownAsText(mirror, [LABEL]);
});

test('signing out ends that session’s desktop and AI link at once; another session of the same person keeps going', async ({
  browser,
}) => {
  const first = await newContext(browser);
  const second = await newContext(browser);
  await first.addInitScript(recordSocketCloses);
  await second.addInitScript(recordSocketCloses);
  await signInContext(first, stack);
  await signInContext(second, stack);
  const firstViewer = await first.newPage();
  await openViewer(firstViewer);
  const secondViewer = await second.newPage();
  await openViewer(secondViewer);
  const firstConsole = new ConsolePage(await first.newPage(), stack.url);
  await firstConsole.open(PAGES.config);
  const mcp = await mcpClient(connectMcp(stack));

  await firstConsole.signOut();

  // The bridge closed every socket of the first session: the AI link and the other desktops'
  // approvals (the fleet feed every viewer keeps) with 4401, the desktop tunnel with 4000 +
  // Guacamole's 769 (unauthorized). The page then finds itself signed out.
  const closes = () => socketCloses(firstViewer).catch(() => []); // mid-navigation: try again
  await expect
    .poll(async () => (await closes()).map((close) => close.path).sort(), { timeout: 15_000 })
    .toEqual(['/tunnel', '/ws/fleet', '/ws/viewer']);
  const byPath = new Map((await closes()).map((close) => [close.path, close]));
  expect(byPath.get('/ws/viewer')).toMatchObject({ code: 4401, reason: /^Signed out/ });
  expect(byPath.get('/ws/fleet')).toMatchObject({ code: 4401, reason: /^Signed out/ });
  expect(byPath.get('/tunnel')).toMatchObject({ code: 4769, reason: /^769 Signed out/ });
  await expect(firstViewer).toHaveURL(/\/signin/, { timeout: 15_000 });
  await firstViewer.reload();
  await expect(firstViewer).toHaveURL(/\/signin/);
  await expect(firstViewer.getByRole('form', { name: 'Sign in' })).toBeVisible();
  expect((await first.request.get(new URL('/api/me', stack.url).toString())).status()).toBe(401);

  // The second session of the same person: untouched, and now the window the AI works with.
  expect(await socketCloses(secondViewer)).toEqual([]);
  await expect(secondViewer.getByTestId('connection-label')).toHaveText('Connected');
  await expect(secondViewer.getByTestId('ai-link')).toHaveAttribute('data-link', 'open');
  await expect.poll(() => viewerRole(secondViewer), { timeout: 10_000 }).toBe('control');
  expect((await second.request.get(new URL('/api/me', stack.url).toString())).status()).toBe(200);
  const drawn = await callTool(mcp, 'draw_overlay', {
    x: 10,
    y: 10,
    width: 50,
    height: 50,
    color: 'teal',
  });
  expect(drawn.isError, drawn.text).toBe(false);
  await expect
    .poll(() => paintedOverlay(secondViewer, String(drawn.structured?.overlay_id)))
    .not.toBeNull();
  await callTool(mcp, 'clear_overlays', {});

  // With the second window closed too, the person has no viewer left: the signed-out page
  // kept nothing registered.
  await secondViewer.close();
  await expect
    .poll(async () => (await callTool(mcp, 'get_display_info', {})).text, { timeout: 10_000 })
    .toMatch(/^viewer_unavailable: /);
});

test('another person watching the desktop never sees the approval of the person in charge', async ({
  browser,
}) => {
  const bob = { username: 'bob', password: 'bob-password-12' };
  const admin = await newContext(browser);
  const adminApi = await signInContext(admin, stack);
  const people = new ConsolePage(await admin.newPage(), stack.url);
  await people.open(PAGES.people);
  await people.addPerson({ ...bob, displayName: 'Bob' });
  // Bob may watch the admin's desktop (a control grant); the admin stays in charge.
  await grantAdminDesktop(adminApi, bob.username, 'control');

  const bobContext = await newContext(browser);
  await signInContextAs(bobContext, stack.url, bob);
  const bobViewer = await bobContext.newPage();
  await openViewer(bobViewer);
  await expect(bobViewer.getByTestId('account-name')).toHaveText('Bob');
  // His window opened first, and still only watches: the person in charge's windows control.
  await expect.poll(() => viewerRole(bobViewer), { timeout: 10_000 }).toBe('mirror');

  const adminViewer = await admin.newPage();
  await openControlViewer(adminViewer, stack, 'assist');
  const mcp = await mcpClient(connectMcp(stack));
  const xev = await startXev(stack.xEnv);
  cleanups.push(() => xev.stop());

  const drawn = await callTool(mcp, 'draw_overlay', {
    x: 20,
    y: 20,
    width: 60,
    height: 60,
    color: 'red',
    label: 'for the admin',
  });
  expect(drawn.isError, drawn.text).toBe(false);
  const drawnId = String(drawn.structured?.overlay_id);
  await expect
    .poll(async () => (await paintedLabel(adminViewer, drawnId))?.text)
    .toBe('for the admin');
  // Bob watches the same desktop: he sees what the AI draws there, never its questions.
  await expect
    .poll(async () => (await paintedLabel(bobViewer, drawnId))?.text)
    .toBe('for the admin');

  const target = { x: xev.rect.x + 20, y: xev.rect.y + 20 };
  const pending = callTool(mcp, 'click_at', target);
  await expect(adminViewer.getByTestId('confirm-panel')).toContainText(
    `At ${target.x}, ${target.y}`,
  );
  // Still pending in the admin's window a moment later, and never shown in Bob's.
  await adminViewer.waitForTimeout(1_000);
  await expect(adminViewer.getByTestId('confirm-panel')).toBeVisible();
  await expect(bobViewer.getByTestId('confirm-panel')).toHaveCount(0);
  await expect(bobViewer.locator('.confirm-preview__crosshair')).toHaveCount(0);
  await expect(bobViewer.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);

  await adminViewer.getByRole('button', { name: 'Deny', exact: true }).click();
  const result = await pending;
  expect(result.text).toMatch(/^permission_denied: /);
  expect(xev.log()).not.toContain('ButtonPress');
  await callTool(mcp, 'clear_overlays', {});
});
