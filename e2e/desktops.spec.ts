// Desktops that belong to people, end to end: a bridge of its own (`serve --desktop local
// --local-desktops per-person`, run as root here, so this is also "npm start as root"), the
// admin's sandboxed "Desktop", Bob's own desktop made on demand, and "Shared" — a real Xvnc on a
// TCP port added over /api/desktops. Bob sees only what he is granted; his AI never acts on the
// admin's desktop; on "Shared" the person in charge is shown in every window, only their AI acts
// (and only they approve), Stop from anyone stops every AI there, the charge moves with "Hand
// over to …" in the viewer; the owner's privacy mask is black in Bob's AI's screenshot; a view
// grant never sends input; and the attack typed by an AI into the sandboxed xterm finds nothing
// and changes nothing. Real Chromium (two signed-in contexts), real MCP SDK clients, every effect
// checked from the X side of the desktop it is about.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startLocalDesktop, type TcpLocalDesktop } from '@overlay-companion/gateway';
import {
  API,
  type AuditPage,
  type DesktopList,
  type DesktopView,
  type Me,
} from '@overlay-companion/protocol';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import sharp from 'sharp';
import { captureRoot } from '../packages/gateway/src/testing/desktopCapture.js';
import { SANDBOX_USER_DEFAULT } from '../packages/gateway/src/desktop/sandbox.js';
import type { BrowserSession } from '../apps/bridge/src/testing/browserSession.js';
import { registerSecret } from '../apps/bridge/src/testing/testLogs.js';
import { BRIDGE_MAIN, startStack, type RunningStack } from './support/bridgeProcess.js';
import { desktopFile } from './support/desktopFiles.js';
import {
  callTool,
  connectMcp,
  connectMcpWithToken,
  openViewerAt,
  pageOf,
  viewerRole,
} from './support/controlPlane.js';
import { saveLayout } from './support/layouts.js';
import { adminSession, signInContextAs } from './support/signIn.js';
import { pointerLocation, screenSize, windowRect } from './support/xdesktop.js';

const run = promisify(execFile);

test.describe.configure({ mode: 'serial' });

const BOB = {
  username: 'bob',
  password: `bob-${Date.now().toString(36)}-password-0123`,
  name: 'Bob',
};
const SHARED_PASSWORD = 'sh4red!x';
// Bottom left of "Shared", on its painted root (the xterm is top left).
const MASK = { x: 100, y: 560, width: 240, height: 120, label: 'Bank' };
const ROOT_COLOUR = '#3366cc';

let work: string;
let stack: RunningStack;
let shared: TcpLocalDesktop;
let typedFile: string;
let admin: BrowserSession;
let bob: BrowserSession;
let bobToken: string;
let adminName: string;
let desktopId: string;
let sharedId: string;
let adminAi: Client;
let bobAi: Client;
let adminContext: BrowserContext;
let bobContext: BrowserContext;
let adminPage: Page;
let bobPage: Page;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  work = await mkdtemp(join(tmpdir(), 'oc-e2e-desktops-'));
  typedFile = join(work, 'shared-typed.txt');
  // "Shared": a VNC server on a loopback TCP port with a password, as a desktop elsewhere would
  // be; its xterm writes every line it is given to a file, so keys that arrive are visible.
  shared = await startLocalDesktop({
    rfbTcp: true,
    password: SHARED_PASSWORD,
    xterm: { command: ['sh', '-c', `cat > ${typedFile}`], geometry: '60x10+20+20' },
  });
  registerSecret(SHARED_PASSWORD);
  await run('xsetroot', ['-solid', ROOT_COLOUR], { env: shared.env });
  stack = await startStack({
    flags: ['--local-desktops', 'per-person'],
    dataDir: join(work, 'data'),
  });
  admin = await adminSession(stack);

  const added = await admin.request(API.desktops, {
    body: {
      name: 'Shared',
      kind: 'vnc',
      params: { host: '127.0.0.1', port: shared.port },
      secrets: { password: SHARED_PASSWORD },
    },
  });
  expect(added.status, await added.clone().text()).toBe(201);
  sharedId = ((await added.json()) as DesktopView).id;
  // The command line's "Desktop" is made when the bridge's desktop directory first loads (a
  // window, a ticket or an AI call), not by GET /api/desktops: the admin's AI looks first.
  adminAi = await connectMcp(stack);
  const adminListed = await callTool(adminAi, 'list_desktops', {});
  expect(adminListed.isError, adminListed.text).toBe(false);
  const mine = await listDesktops(admin);
  const sharedView = mine.find((d) => d.id === sharedId);
  if (sharedView === undefined) throw new Error('the admin does not see "Shared"');
  // Its owner is in charge until the charge is handed over; windows show this name.
  adminName = sharedView.in_charge.name;
  const cli = mine.find((d) => d.name === 'Desktop');
  if (cli === undefined) throw new Error(`the admin has no "Desktop": ${JSON.stringify(mine)}`);
  desktopId = cli.id;

  const person = await admin.request(API.people, {
    body: {
      username: BOB.username,
      password: BOB.password,
      role: 'member',
      display_name: BOB.name,
    },
  });
  expect(person.status, await person.clone().text()).toBe(201);
  registerSecret(BOB.password);
  bobContext = await browser.newContext();
  bob = await signInContextAs(bobContext, stack.url, BOB);
  const token = await bob.request(API.tokens, { body: { name: 'bob ai' } });
  expect(token.status).toBe(201);
  bobToken = ((await token.json()) as { secret: string }).secret;
  registerSecret(bobToken);

  // The owner's map of "Shared" (the admin owns it): one monitor the desktop's size, and a
  // privacy mask. Saved before any window opens, so every window starts with it.
  const size = await screenSize(shared.env);
  expect(MASK.y + MASK.height).toBeLessThan(size.height);
  await saveLayout(stack, {
    monitors: [{ x: 0, y: 0, width: size.width, height: size.height }],
    masks: [MASK],
  });

  bobAi = await connectMcpWithToken(stack.url, bobToken, 'bob-ai');
  adminContext = await browser.newContext();
  await signInContextAs(adminContext, stack.url, stack.admin);
});

test.afterAll(async () => {
  await adminAi?.close();
  await bobAi?.close();
  await adminContext?.close();
  await bobContext?.close();
  await stack?.stop();
  await shared?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

async function listDesktops(session: BrowserSession): Promise<DesktopView[]> {
  const answer = await session.request(API.desktops);
  expect(answer.status).toBe(200);
  return ((await answer.json()) as DesktopList).desktops;
}

async function grantBob(level: 'view' | 'control'): Promise<void> {
  const answer = await admin.request(`${API.desktops}/${sharedId}/grants/${bob.me.person.id}`, {
    method: 'PUT',
    body: { level },
  });
  expect(answer.status).toBeLessThan(300);
  // The API hands the change to the runtime without waiting: Bob's list says when it is there.
  await expect
    .poll(async () => (await listDesktops(bob)).find((d) => d.id === sharedId)?.access)
    .toBe(level);
}

/** Opens the viewer on one desktop and waits for its picture and the AI link. */
async function openOn(page: Page, desktop: string): Promise<void> {
  await openViewerAt(page, stack, `/?desktop=${desktop}`);
  await expect(page.getByTestId('charge-button')).toBeVisible();
}

/** The person in charge raises the mode in their window, approving it there, as a person must. */
async function chooseMode(page: Page, mode: 'autopilot' | 'passive'): Promise<void> {
  const select = page.getByTestId('mode-select');
  await select.selectOption(mode);
  if (mode === 'autopilot') {
    await expect(page.getByTestId('confirm-panel')).toContainText(`Confirm: switch to ${mode}`);
    await approve(page);
  }
  await expect(select).toHaveValue(mode);
}

async function approve(page: Page): Promise<void> {
  const button = page.getByRole('button', { name: 'Approve', exact: true });
  await expect(button).not.toHaveAttribute('aria-disabled', 'true');
  await button.click();
  await expect(page.getByTestId('confirm-panel')).toHaveCount(0);
}

const chargeLabel = (page: Page) => page.getByTestId('charge-label');

test('each person sees only the desktops granted to them', async () => {
  // Nothing of the admin's before a grant (GET /api/desktops reads the records as they are: it
  // does not make Bob's own desktop, his first window or AI call does).
  const first = await listDesktops(bob);
  expect(first.filter((d) => d.owner.id !== bob.me.person.id)).toEqual([]);
  const bobLooks = await callTool(bobAi, 'list_desktops', {});
  expect(bobLooks.isError, bobLooks.text).toBe(false);
  const before = await listDesktops(bob);
  expect(before.map((d) => [d.name, d.kind, d.access, d.owner.id])).toEqual([
    ["bob's desktop", 'local', 'owner', bob.me.person.id],
  ]);
  const ticket = await bob.request(API.tickets, { body: { socket: 'viewer', desktop: desktopId } });
  expect(ticket.status).toBe(404);
  const sharedTicket = await bob.request(API.tickets, {
    body: { socket: 'viewer', desktop: sharedId },
  });
  expect(sharedTicket.status).toBe(404);

  await grantBob('control');
  const after = await listDesktops(bob);
  expect(after.map((d) => [d.name, d.access]).sort()).toEqual([
    ['Shared', 'control'],
    ["bob's desktop", 'owner'],
  ]);
  const shown = after.find((d) => d.id === sharedId);
  // Grants are the owner's business: Bob sees none, and no password either way.
  expect(shown?.grants).toEqual([]);
  expect(shown?.in_charge.id).toBe(admin.me.person.id);
  expect(JSON.stringify(after)).not.toContain(SHARED_PASSWORD);
  // The admin's own desktop never appears for Bob, nor may he open it.
  expect(after.some((d) => d.id === desktopId || d.name === 'Desktop')).toBe(false);
  expect(
    (await bob.request(API.tickets, { body: { socket: 'viewer', desktop: desktopId } })).status,
  ).toBe(404);
  // His AI's list agrees.
  const listed = await callTool(bobAi, 'list_desktops', {});
  expect(listed.isError, listed.text).toBe(false);
  const ids = (listed.structured?.desktops as Array<{ id: string }>).map((d) => d.id);
  expect(ids).toContain(sharedId);
  expect(ids).not.toContain(desktopId);
});

test("Bob's AI cannot act on the admin's desktop", async () => {
  const before = await pointerLocation(stack.xEnv);
  const target = { x: before.x === 300 ? 301 : 300, y: 400 };
  for (const [tool, args] of [
    ['draw_overlay', { x: 10, y: 10, width: 50, height: 50 }],
    ['click_at', target],
    ['type_text', { text: 'echo from bob\n' }],
    ['take_screenshot', {}],
  ] as const) {
    const refused = await callTool(bobAi, tool, { ...args, desktop: desktopId });
    expect(refused.isError, `${tool}: ${refused.text}`).toBe(true);
    expect(refused.text).toMatch(/^permission_denied: .*may use no desktop/);
    // A desktop Bob may not see is answered like one that does not exist: its name is not his.
    expect(refused.text).not.toContain('"Desktop"');
  }
  const selected = await callTool(bobAi, 'select_desktop', { desktop: desktopId });
  expect(selected.isError).toBe(true);
  // Nothing reached X on the admin's desktop.
  expect(await pointerLocation(stack.xEnv)).toEqual(before);
});

test('on "Shared" the owner is in charge: every window says so, only their AI acts, and Stop from Bob stops it', async () => {
  // Bob's window first: were control given to the first window, his would run the admin's AI.
  bobPage = await bobContext.newPage();
  await openOn(bobPage, sharedId);
  adminPage = await adminContext.newPage();
  await openOn(adminPage, sharedId);
  await expect.poll(() => viewerRole(adminPage)).toBe('control');
  await expect.poll(() => viewerRole(bobPage)).toBe('mirror');
  await expect(chargeLabel(adminPage)).toHaveText('You are in charge');
  await expect(chargeLabel(bobPage)).toHaveText(`AI in charge: ${adminName}`);
  await expect(bobPage.getByTestId('charge-button')).toContainText('Shared');
  await expect(bobPage.getByTestId('view-only-badge')).toHaveCount(0);

  await chooseMode(adminPage, 'autopilot');
  const start = await pointerLocation(shared.env);
  const bobTarget = { x: 1000, y: 300 };
  const refused = await callTool(bobAi, 'click_at', { ...bobTarget, desktop: sharedId });
  expect(refused.isError).toBe(true);
  expect(refused.text).toMatch(/^permission_denied: /);
  expect(refused.text).toContain(`${adminName} is in charge of the desktop "Shared"`);
  expect(await pointerLocation(shared.env)).toEqual(start);

  const adminTarget = { x: 900, y: 350 };
  const clicked = await callTool(adminAi, 'click_at', { ...adminTarget, desktop: sharedId });
  expect(clicked.isError, clicked.text).toBe(false);
  await expect.poll(() => pointerLocation(shared.env)).toEqual(adminTarget);

  // Bob — a watcher — presses Stop in his window: the admin's AI is stopped there.
  await bobPage.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(adminPage.getByTestId('mode-select')).toHaveValue('passive');
  const stopped = await callTool(adminAi, 'click_at', { x: 950, y: 360, desktop: sharedId });
  expect(stopped.isError).toBe(true);
  expect(stopped.text).toMatch(/^permission_denied: click_at is not allowed in passive mode/);
  expect(await pointerLocation(shared.env)).toEqual(adminTarget);
});

test('"Hand over to Bob" in the viewer moves the charge: both windows say so, Bob approves his AI, the admin\'s is refused', async () => {
  await adminPage.getByTestId('charge-button').click();
  await adminPage.getByRole('button', { name: `Hand over to ${BOB.name}`, exact: true }).click();
  await expect(chargeLabel(bobPage)).toHaveText('You are in charge');
  await expect(chargeLabel(adminPage)).toHaveText(`AI in charge: ${BOB.name}`);
  await expect.poll(() => viewerRole(bobPage)).toBe('control');
  await expect.poll(() => viewerRole(adminPage)).toBe('mirror');

  // Bob's AI asks; Bob approves in his window (the admin's shows no approval).
  const target = { x: 1000, y: 300 };
  const pending = callTool(bobAi, 'click_at', { ...target, desktop: sharedId });
  await expect(bobPage.getByTestId('confirm-panel')).toContainText('bob-ai');
  await expect(adminPage.getByTestId('confirm-panel')).toHaveCount(0);
  await approve(bobPage);
  const clicked = await pending;
  expect(clicked.isError, clicked.text).toBe(false);
  await expect.poll(() => pointerLocation(shared.env)).toEqual(target);

  const refused = await callTool(adminAi, 'click_at', { x: 900, y: 350, desktop: sharedId });
  expect(refused.isError).toBe(true);
  expect(refused.text).toContain(`${BOB.name} is in charge of the desktop "Shared"`);
  expect(await pointerLocation(shared.env)).toEqual(target);

  // The admin (owner) takes it back from the panel.
  await adminPage.getByTestId('charge-button').click();
  await adminPage.getByRole('button', { name: 'Take charge', exact: true }).click();
  await expect(chargeLabel(adminPage)).toHaveText('You are in charge');
  await expect(chargeLabel(bobPage)).toHaveText(`AI in charge: ${adminName}`);
});

test("the owner's privacy mask is black in Bob's AI's screenshot of \"Shared\"", async () => {
  const root = await captureRoot(shared.env);
  const at = (x: number, y: number) => {
    const i = (y * root.width + x) * 4;
    return [root.rgba[i], root.rgba[i + 1], root.rgba[i + 2]];
  };
  // The desktop shows its blue root under the mask: there is something to hide.
  expect(at(MASK.x + 10, MASK.y + 10)).toEqual([0x33, 0x66, 0xcc]);

  await expect
    .poll(
      async () => {
        const shot = await callTool(bobAi, 'take_screenshot', { desktop: sharedId });
        if (shot.isError) return shot.text;
        const { data, info } = await sharp(Buffer.from(shot.image ?? '', 'base64'))
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        if (info.width !== root.width) return `screenshot ${info.width}x${info.height}`;
        let notBlack = 0;
        for (let y = MASK.y; y < MASK.y + MASK.height; y++) {
          for (let x = MASK.x; x < MASK.x + MASK.width; x++) {
            const i = (y * info.width + x) * 3;
            if (data[i] !== 0 || data[i + 1] !== 0 || data[i + 2] !== 0) notBlack++;
          }
        }
        // Beside the mask, the desktop itself.
        const beside = (MASK.y + 10) * info.width * 3 + (MASK.x + MASK.width + 20) * 3;
        const besideRgb = [data[beside], data[beside + 1], data[beside + 2]];
        return { notBlack, besideRgb };
      },
      { timeout: 15_000 },
    )
    .toEqual({ notBlack: 0, besideRgb: [0x33, 0x66, 0xcc] });
});

test('a view grant never sends input, and the window says "View only"', async () => {
  const xterm = await windowRect(shared.env, 'XTerm');
  const size = await screenSize(shared.env);
  // The admin types in the xterm first: keys from a window do reach it (the control case).
  const adminAt = { x: xterm.x + 40, y: xterm.y + 30 };
  const adminPoint = await pageOf(adminPage, size.width, adminAt.x, adminAt.y);
  await adminPage.mouse.click(adminPoint.x, adminPoint.y);
  await expect(adminPage.getByTestId('keyboard-target')).toHaveText('Keyboard → desktop');
  await adminPage.keyboard.type('one\n');
  await expect.poll(() => readFile(typedFile, 'utf8')).toBe('one\n');
  // Where the person's click landed (the page maps it to within a pixel of the aim).
  await expect
    .poll(async () => {
      const at = await pointerLocation(shared.env);
      return Math.abs(at.x - adminAt.x) <= 1 && Math.abs(at.y - adminAt.y) <= 1;
    })
    .toBe(true);
  const landed = await pointerLocation(shared.env);

  await grantBob('view');
  await openOn(bobPage, sharedId);
  await expect(bobPage.getByTestId('view-only-badge')).toHaveText('View only');
  await expect(chargeLabel(bobPage)).toHaveText(`AI in charge: ${adminName}`);

  // Bob clicks elsewhere in the xterm and types a line: none of it may arrive.
  const bobAt = { x: xterm.x + 120, y: xterm.y + 60 };
  const bobPoint = await pageOf(bobPage, size.width, bobAt.x, bobAt.y);
  await bobPage.mouse.click(bobPoint.x, bobPoint.y);
  await bobPage.keyboard.type('leak\n');
  await bobPage.mouse.move(bobPoint.x + 30, bobPoint.y + 10);
  await bobPage.mouse.down();
  await bobPage.mouse.up();

  // The admin types again: once their line is in the file, Bob's (sent before) would be too.
  await adminPage.keyboard.type('two\n');
  await expect.poll(() => readFile(typedFile, 'utf8')).toBe('one\ntwo\n');
  expect(await pointerLocation(shared.env)).toEqual(landed);

  // Nor does his AI act with only a view grant.
  const refused = await callTool(bobAi, 'click_at', { ...bobAt, desktop: sharedId });
  expect(refused.isError).toBe(true);
  expect(refused.text).toContain('has only a view grant there');
  expect(await pointerLocation(shared.env)).toEqual(landed);
});

test("an AI typing the sandbox attack into the admin's local desktop finds nothing and changes nothing", async () => {
  const hashOf = async (path: string) =>
    createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  const mainBefore = await hashOf(BRIDGE_MAIN);
  const meOf = async () => {
    const me = (await (await admin.request(API.me)).json()) as Me;
    return { person: me.person, permissions: me.permissions };
  };
  const meBefore = await meOf();
  const port = new URL(stack.url).port;
  const dataDir = join(work, 'data');
  // The desktop's HOME, as the host sees it.
  const outFile = desktopFile(stack.xEnv, 'attack.txt').onHost;

  const page = await adminContext.newPage();
  await openOn(page, desktopId);
  await expect.poll(() => viewerRole(page)).toBe('control');
  await chooseMode(page, 'autopilot');
  const xterm = await windowRect(stack.xEnv, 'XTerm');
  const focus = await callTool(adminAi, 'click_at', {
    x: xterm.x + xterm.width / 2,
    y: xterm.y + xterm.height / 2,
    desktop: desktopId,
  });
  expect(focus.isError, focus.text).toBe(false);

  const signin = `http://127.0.0.1:${port}${API.signIn}`;
  const steps = [
    'id -un; echo ID=$?',
    'env; echo ENV=$?',
    `cat /proc/${stack.pid}/environ; echo PROC=$?`,
    `ls ${dataDir}; echo LS=$?`,
    `curl -s -m 3 -H content-type:application/json -H origin:http://127.0.0.1:${port} -d '{"username":"${stack.admin.username}","password":"guessed-by-the-ai"}' ${signin}; echo CURL=$?`,
    `(exec 3<>/dev/tcp/127.0.0.1/${port}); echo TCP=$?`,
    `echo x >> ${BRIDGE_MAIN}; echo WRITE=$?`,
    'echo DONE',
  ];
  const typed = await callTool(adminAi, 'type_text', {
    text: `{ ${steps.join('; ')}; } > ~/attack.txt 2>&1\n`,
    desktop: desktopId,
    // 60 words a minute by default: the line would take a minute and a half.
    typing_speed_wpm: 1000,
  });
  expect(typed.isError, typed.text).toBe(false);
  await expect
    .poll(() => readFile(outFile, 'utf8').catch(() => ''), { timeout: 30_000 })
    .toContain('DONE');
  const out = await readFile(outFile, 'utf8');
  await test.info().attach('attack-output.txt', { body: out, contentType: 'text/plain' });
  const status = (name: string) => Number(new RegExp(`^${name}=(\\d+)$`, 'm').exec(out)?.[1]);

  // The line ran, in the sandbox, as its unprivileged user, with a clean environment.
  // A uid of its own, named as the sandbox's accounts name it (not a host account).
  expect(out).toMatch(new RegExp(`^${SANDBOX_USER_DEFAULT}$`, 'm'));
  expect(out).toMatch(/^HOME=\/home\/desktop$/m);
  expect(out).not.toMatch(/^OC_/m);
  for (const secret of [stack.admin.password, stack.mcpToken ?? 'none', bobToken, BOB.password]) {
    expect(out).not.toContain(secret);
  }
  // The bridge's /proc, its data dir, its port and its code are out of reach.
  expect(status('PROC')).not.toBe(0);
  expect(status('LS')).not.toBe(0);
  expect(status('CURL')).not.toBe(0);
  expect(status('TCP')).not.toBe(0);
  expect(status('WRITE')).not.toBe(0);
  expect(await hashOf(BRIDGE_MAIN)).toBe(mainBefore);
  // No sign-in attempt reached the bridge, and the admin's rights are as they were.
  const audit = (await (
    await admin.request(`${API.audit}?kind=sign_in_failed`)
  ).json()) as AuditPage;
  expect(audit.entries).toEqual([]);
  expect(await meOf()).toEqual(meBefore);
  // The control case: a failed sign-in that does reach the bridge shows in that audit query.
  const failed = await fetch(signin, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(stack.url).origin },
    body: JSON.stringify({ username: stack.admin.username, password: 'guessed-by-the-test' }),
  });
  expect(failed.status).toBe(401);
  await expect
    .poll(async () => {
      const page = (await (
        await admin.request(`${API.audit}?kind=sign_in_failed`)
      ).json()) as AuditPage;
      return page.entries.length;
    })
    .toBe(1);
  await chooseMode(page, 'passive');
  await page.close();
});
