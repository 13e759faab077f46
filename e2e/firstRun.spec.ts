// A person's first day, in Chromium against a real `serve --desktop local` started as on a fresh
// machine (no OC_ADMIN_USER / OC_ADMIN_PASSWORD / OC_MCP_TOKEN): the setup link serve printed →
// create the admin → sign out and in again on /signin → create a token on /config (its secret
// shown once) → a real MCP client (the SDK's) uses it while the viewer is open → its calls are
// in the audit log with the token's and client's names → revoke the token in the UI → the
// client's next call, and a new client with that token, are refused with 401.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PAGES } from '@overlay-companion/protocol';
import { expect, test, type Locator } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage.js';
import { startFirstRunStack, type FirstRunStack } from './support/bridgeProcess.js';
import { callTool, connectMcpWithToken } from './support/controlPlane.js';
import { paintedCount, paintedLabel, paintedOverlay } from './support/overlays.js';

let stack: FirstRunStack;

test.beforeAll(async () => {
  stack = await startFirstRunStack();
});

test.afterAll(async () => {
  await stack.stop();
});

const ADMIN = {
  username: 'ada',
  displayName: 'Ada Lovelace',
  password: 'correct horse battery staple',
};
const TOKEN_NAME = 'Laptop agent';
const CLIENT_NAME = 'first-run-agent';

/** The audit table's cells of one row, by column. */
function auditCell(row: Locator, column: 'Who' | 'Details' | 'Outcome'): Locator {
  const index = { Who: 2, Details: 3, Outcome: 6 }[column];
  return row.locator('td').nth(index);
}

test('setup link → admin → sign in → token → MCP client → audit log → revoke → refused', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const consolePage = new ConsolePage(page, stack.url);
  const origin = new URL(stack.url).origin;

  await test.step('the printed setup link opens /setup; creating the admin signs them in', async () => {
    expect(stack.setupUrl.startsWith(`${origin}/setup#code=`)).toBe(true);
    await page.goto(stack.setupUrl);
    await expect(page.getByRole('heading', { name: 'Create the admin' })).toBeVisible();
    const form = page.getByRole('form', { name: 'Create the admin' });
    // The code comes from the link's fragment: the person is not asked for it.
    await expect(form.getByLabel('Setup code')).toHaveCount(0);
    await form.getByLabel('Username').fill(ADMIN.username);
    await form.getByLabel('Display name').fill(ADMIN.displayName);
    await form.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await form.getByLabel('Password again').fill(ADMIN.password);
    await form.getByRole('button', { name: 'Create the admin and sign in' }).click();
    await expect(page).toHaveURL(`${origin}${PAGES.config}`);
    await expect(consolePage.heading).toHaveText('Config & tokens');
    await expect(page.getByRole('banner')).toContainText(ADMIN.displayName);
  });

  await test.step('the setup link works once', async () => {
    const stranger = await browser.newContext();
    try {
      const other = await stranger.newPage();
      await other.goto(stack.setupUrl);
      await expect(other.getByRole('heading', { name: 'Setup is done' })).toBeVisible();
      await expect(other.getByRole('form', { name: 'Create the admin' })).toHaveCount(0);
    } finally {
      await stranger.close();
    }
  });

  await test.step('sign out, then sign in again through /signin', async () => {
    await consolePage.signOut();
    // Signed out for real: a console page sends the browser to sign in, and back afterwards.
    await consolePage.open(PAGES.config);
    await expect(page).toHaveURL(`${origin}/signin?next=${encodeURIComponent(PAGES.config)}`);
    const form = page.getByRole('form', { name: 'Sign in' });
    await form.getByLabel('Username').fill(ADMIN.username);
    await form.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(`${origin}${PAGES.config}`);
    await expect(consolePage.heading).toHaveText('Config & tokens');
  });

  const viewer = await page.context().newPage();
  await test.step('the viewer opens in another page of the same browser', async () => {
    await viewer.goto(stack.url);
    await expect(viewer.getByTestId('connection-label')).toHaveText('Connected', {
      timeout: 30_000,
    });
    await expect(viewer.getByTestId('desktop-size')).toBeVisible({ timeout: 15_000 });
    await expect(viewer.getByTestId('ai-link')).toHaveAttribute('data-link', 'open', {
      timeout: 15_000,
    });
    await expect(viewer.getByTestId('account-name')).toHaveText(ADMIN.displayName);
  });

  let secret = '';
  await test.step('a token made on /config is shown once, with the configuration to paste', async () => {
    secret = await consolePage.createToken(TOKEN_NAME);
    await expect(page.getByRole('heading', { name: `New token “${TOKEN_NAME}”` })).toBeVisible();
    const configuration = page.getByLabel('Client configuration with the new token', {
      exact: true,
    });
    await expect(configuration).toContainText(`"Authorization": "Bearer ${secret}"`);
    await expect(configuration).toContainText(`"url": "${origin}/mcp"`);
    await page.getByRole('button', { name: 'I have copied it — hide the token' }).click();
    await page.reload();
    await expect(consolePage.tokenRow(TOKEN_NAME)).toContainText('Active');
    expect(await page.content()).not.toContain(secret);
    // Told apart by its first characters (the prefix and four more), never the whole secret.
    await expect(consolePage.tokenRow(TOKEN_NAME).locator('code')).toHaveText(
      `${secret.slice(0, 'oc_'.length + 4)}…`,
    );
  });

  const client: Client = await connectMcpWithToken(stack.url, secret, CLIENT_NAME);
  try {
    await test.step('a real MCP client with that token draws on the viewer and takes a screenshot', async () => {
      const drawn = await callTool(client, 'draw_overlay', {
        x: 40,
        y: 40,
        width: 180,
        height: 60,
        color: 'orange',
        label: 'First call',
      });
      expect(drawn.isError, drawn.text).toBe(false);
      await expect
        .poll(() => paintedOverlay(viewer, String(drawn.structured?.overlay_id)))
        .not.toBeNull();
      await expect
        .poll(async () => (await paintedLabel(viewer, String(drawn.structured?.overlay_id)))?.text)
        .toBe('First call');

      const shot = await callTool(client, 'take_screenshot', {});
      expect(shot.isError, shot.text).toBe(false);
      expect(shot.image, 'take_screenshot returns an image').toBeDefined();
      // PNG or JPEG, decoded from what the desktop showed: not an empty answer.
      expect(Buffer.from(shot.image ?? '', 'base64').length).toBeGreaterThan(1000);
      expect(shot.structured).toMatchObject({ width: expect.any(Number) });
    });

    await test.step('/audit shows both calls: tool, token, client and outcome', async () => {
      await consolePage.navigate('Audit');
      for (const tool of ['draw_overlay', 'take_screenshot']) {
        const row = consolePage.auditToolRows(tool);
        await expect(row).toHaveCount(1);
        await expect(auditCell(row, 'Who')).toHaveText(
          `AI · token “${TOKEN_NAME}” · ${CLIENT_NAME} · for ${ADMIN.displayName}`,
        );
        await expect(auditCell(row, 'Outcome')).toHaveText('ok');
      }
      await expect(auditCell(consolePage.auditToolRows('draw_overlay'), 'Details')).toContainText(
        '"label":"First call"',
      );
      // The person's own steps are there too.
      await expect(consolePage.auditRows().filter({ hasText: 'Token created' })).toHaveCount(1);
      await expect(consolePage.auditRows().filter({ hasText: 'Sign-in' })).not.toHaveCount(0);
    });

    await test.step('revoking the token in the UI refuses the client’s next call (401)', async () => {
      await consolePage.navigate('Config & tokens');
      await consolePage.revokeToken(TOKEN_NAME);
      await expect(consolePage.tokenRow(TOKEN_NAME)).toContainText('Revoked');
      await expect(
        page.getByRole('button', { name: `Revoke ${TOKEN_NAME}`, exact: true }),
      ).toHaveCount(0);

      const refused = client.callTool({
        name: 'draw_overlay',
        arguments: { x: 0, y: 0, width: 10, height: 10, color: 'red' },
      });
      await expect(refused).rejects.toMatchObject({
        code: 401,
        message: expect.stringContaining('This token was revoked'),
      });
      // Nothing reached the viewer: still only the first overlay.
      await expect.poll(() => paintedCount(viewer)).toBe(1);
    });

    await test.step('a new client with the revoked token cannot connect', async () => {
      await expect(connectMcpWithToken(stack.url, secret, CLIENT_NAME)).rejects.toMatchObject({
        code: 401,
      });
    });

    await test.step('the revocation is in the audit log', async () => {
      await consolePage.navigate('Audit');
      await expect(consolePage.auditRows().filter({ hasText: 'Token revoked' })).toHaveCount(1);
      // The refused calls never ran: still one entry per tool.
      await expect(consolePage.auditToolRows('draw_overlay')).toHaveCount(1);
    });
  } finally {
    await client.close();
  }
});
