// Accessibility of every page a person uses, in Chromium against real stacks started for this
// spec: axe-core on /signin, /setup, /config, /desktops, /settings, /audit, /recordings, /people
// and the viewer — each in the states people meet (errors shown, a new token, a confirmation open, the
// account menu, an approval waiting) at 1280×800, at a phone's 390×844 and at 4K — failing on serious
// or critical violations; and signing in and creating and revoking a token with the keyboard
// alone.
import { PAGES } from '@overlay-companion/protocol';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { ConsolePage } from './pages/ConsolePage.js';
import { expectNoSeriousViolations, tabTo } from './support/a11y.js';
import {
  startFirstRunStack,
  startStack,
  type FirstRunStack,
  type RunningStack,
} from './support/bridgeProcess.js';
import { callTool, connectMcp, viewerRole } from './support/controlPlane.js';
import { signInContext } from './support/signIn.js';

let stack: RunningStack;
/** A bridge nobody has set up yet: the only place /setup shows its form. */
let fresh: FirstRunStack;
const contexts: BrowserContext[] = [];

test.beforeAll(async () => {
  test.setTimeout(120_000);
  stack = await startStack();
  fresh = await startFirstRunStack();
});

test.afterAll(async () => {
  await Promise.all([stack.stop(), fresh.stop()]);
});

test.afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

async function newPage(
  browser: Browser,
  viewport: { width: number; height: number },
  signedIn: boolean,
): Promise<Page> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  if (signedIn) await signInContext(context, stack);
  return context.newPage();
}

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
  { width: 3840, height: 2160 },
];

for (const viewport of VIEWPORTS) {
  const size = `${viewport.width}×${viewport.height}`;

  test(`sign-in and setup pages at ${size}`, async ({ browser }) => {
    const page = await newPage(browser, viewport, false);

    await page.goto(new URL(PAGES.signIn, fresh.url).toString());
    await expect(page.getByRole('note')).toContainText('This bridge has no admin yet');
    await expectNoSeriousViolations(page, `/signin before setup (${size})`);

    await page.goto(fresh.setupUrl);
    const setup = page.getByRole('form', { name: 'Create the admin' });
    await expect(setup).toBeVisible();
    await expectNoSeriousViolations(page, `/setup from the link (${size})`);
    await setup.getByRole('button', { name: 'Create the admin and sign in' }).click();
    await expect(setup.getByLabel('Username')).toHaveAttribute('aria-invalid', 'true');
    await expect(setup.getByLabel('Username')).toBeFocused();
    await expectNoSeriousViolations(page, `/setup with errors (${size})`);

    // A link that lost its code: the form asks for it.
    await page.goto(new URL(PAGES.setup, fresh.url).toString());
    await expect(page.getByLabel('Setup code')).toBeVisible();
    await expectNoSeriousViolations(page, `/setup without a code (${size})`);

    await page.goto(new URL(PAGES.signIn, stack.url).toString());
    const signIn = page.getByRole('form', { name: 'Sign in' });
    await expect(signIn).toBeVisible();
    await expectNoSeriousViolations(page, `/signin (${size})`);
    await signIn.getByLabel('Username').fill('nobody');
    await signIn.getByLabel('Password').fill('not the password');
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toBeVisible();
    await expect(signIn.getByLabel('Password')).toBeFocused();
    await expectNoSeriousViolations(page, `/signin after a refusal (${size})`);
  });

  test(`console pages at ${size}`, async ({ browser }) => {
    const page = await newPage(browser, viewport, true);
    const consolePage = new ConsolePage(page, stack.url);

    await consolePage.open(PAGES.config);
    await expect(consolePage.heading).toHaveText('Config & tokens');
    await expect(page.getByRole('form', { name: 'Create a token' })).toBeVisible();
    await expectNoSeriousViolations(page, `/config (${size})`);

    const name = `axe ${size}`;
    await consolePage.createToken(name);
    await expectNoSeriousViolations(page, `/config with a new token shown (${size})`);
    await page.getByRole('button', { name: 'I have copied it — hide the token' }).click();
    await page.getByRole('button', { name: `Revoke ${name}`, exact: true }).click();
    await expect(page.getByRole('button', { name: 'Revoke token' })).toBeVisible();
    await expectNoSeriousViolations(page, `/config asking to revoke (${size})`);

    await consolePage.open(PAGES.desktops);
    await expect(consolePage.heading).toHaveText('Desktops');
    await expect(page.getByRole('form', { name: 'Add a desktop' })).toBeVisible();
    await expectNoSeriousViolations(page, `/desktops (${size})`);

    await consolePage.open(PAGES.settings);
    await expect(consolePage.heading).toHaveText('Settings');
    await expect(page.getByRole('checkbox').first()).toBeVisible();
    await expectNoSeriousViolations(page, `/settings (${size})`);

    await consolePage.open(PAGES.audit);
    await expect(consolePage.auditRows().first()).toBeVisible();
    await expectNoSeriousViolations(page, `/audit (${size})`);

    await consolePage.open(PAGES.recordings);
    await expect(consolePage.heading).toHaveText('Recordings');
    await expect(
      page.getByText('No recordings yet').or(page.getByRole('region', { name: 'Recordings' })),
    ).toBeVisible();
    await expectNoSeriousViolations(page, `/recordings (${size})`);

    await consolePage.open(PAGES.people);
    await expect(page.getByRole('region', { name: 'People' })).toBeVisible();
    await expectNoSeriousViolations(page, `/people (${size})`);
    await page.getByRole('button', { name: 'Reset the password of admin' }).click();
    await expect(page.getByRole('form', { name: 'New password for admin' })).toBeVisible();
    await expectNoSeriousViolations(page, `/people resetting a password (${size})`);
  });

  test(`viewer at ${size}`, async ({ browser }) => {
    const page = await newPage(browser, viewport, true);
    await page.goto(stack.url);
    await expect(page.getByTestId('connection-label')).toHaveText('Connected', {
      timeout: 30_000,
    });
    await expect(page.getByTestId('ai-link')).toHaveAttribute('data-link', 'open', {
      timeout: 15_000,
    });
    // The window the approval will show in (one closed by the previous test may hold control
    // for a moment).
    await expect.poll(() => viewerRole(page), { timeout: 10_000 }).toBe('control');
    await expect(page.getByTestId('mode-select')).toHaveValue('assist');
    await expectNoSeriousViolations(page, `the viewer (${size})`);

    await page.getByRole('button', { name: /^Account:/ }).click();
    await expect(page.getByRole('link', { name: /Config & tokens/ })).toBeVisible();
    await expectNoSeriousViolations(page, `the viewer's account menu (${size})`);
    await page.keyboard.press('Escape');

    const mcp = await connectMcp(stack);
    try {
      const pending = callTool(mcp, 'click_at', { x: 5, y: 5 });
      await expect(page.getByTestId('confirm-panel')).toBeVisible();
      await expectNoSeriousViolations(page, `the viewer asking for approval (${size})`);
      await page.getByRole('button', { name: 'Deny', exact: true }).click();
      expect((await pending).text).toMatch(/^permission_denied: /);
    } finally {
      await mcp.close();
    }
  });
}

test('keyboard alone: Tab to the sign-in fields, type, Enter signs in', async ({ browser }) => {
  const page = await newPage(browser, VIEWPORTS[0]!, false);
  await page.goto(new URL(PAGES.signIn, stack.url).toString());
  const form = page.getByRole('form', { name: 'Sign in' });
  await expect(form).toBeVisible();
  // The first field is the first stop.
  expect(await tabTo(page, form.getByLabel('Username'))).toBe(1);
  await page.keyboard.type(stack.admin.username);
  await page.keyboard.press('Tab');
  await expect(form.getByLabel('Password')).toBeFocused();
  await page.keyboard.type(stack.admin.password);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(stack.url);
  await expect(page.getByTestId('connection-label')).toHaveText('Connected', { timeout: 30_000 });
});

test('keyboard alone on /config: create a token, hide it, and revoke it through the confirmation', async ({
  browser,
}) => {
  const page = await newPage(browser, VIEWPORTS[0]!, true);
  const consolePage = new ConsolePage(page, stack.url);
  await consolePage.open(PAGES.config);
  const form = page.getByRole('form', { name: 'Create a token' });
  await expect(form).toBeVisible();
  const name = 'keyboard token';

  await tabTo(page, form.getByLabel('Name'));
  await page.keyboard.type(name);
  await tabTo(page, form.getByRole('button', { name: 'Create token' }));
  await page.keyboard.press('Enter');
  // The new token's heading takes the focus, so a screen reader starts right there.
  await expect(page.getByRole('heading', { name: `New token “${name}”` })).toBeFocused();
  await tabTo(page, page.getByRole('button', { name: 'I have copied it — hide the token' }));
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Token', { exact: true })).toHaveCount(0);
  // The button went away with the secret: the keyboard lands on the tokens, not the page's top.
  const tokensHeading = page.getByRole('heading', { name: 'API tokens' });
  await expect(tokensHeading).toBeFocused();

  const revoke = page.getByRole('button', { name: `Revoke ${name}`, exact: true });
  await tabTo(page, revoke);
  await page.keyboard.press('Enter');
  // The question takes the focus on Cancel (a stray Enter does no harm); Escape takes it back.
  await expect(page.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(revoke).toBeFocused();
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByRole('button', { name: 'Revoke token' }), { backwards: true });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Revoked' })).toHaveText(
    `Revoked “${name}”.`,
  );
  await expect(consolePage.tokenRow(name)).toContainText('Revoked');
  await expect(tokensHeading).toBeFocused();
});

test('keyboard alone on /people: add a person, reset their password, remove them', async ({
  browser,
}) => {
  const page = await newPage(browser, VIEWPORTS[0]!, true);
  const consolePage = new ConsolePage(page, stack.url);
  await consolePage.open(PAGES.people);
  const form = page.getByRole('form', { name: 'Add a person' });
  await tabTo(page, form.getByLabel('Username'));
  await page.keyboard.type('keyboard-person');
  await tabTo(page, form.getByLabel('Password'));
  await page.keyboard.type('a-long-password');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Added' })).toHaveText(
    'Added keyboard-person.',
  );

  const reset = page.getByRole('button', { name: 'Reset the password of keyboard-person' });
  await tabTo(page, reset);
  await page.keyboard.press('Enter');
  const resetForm = page.getByRole('form', { name: 'New password for keyboard-person' });
  await expect(resetForm.getByLabel('New password for keyboard-person')).toBeFocused();
  // Escape closes the form and gives the keyboard back to the button that opened it.
  await page.keyboard.press('Escape');
  await expect(resetForm).toHaveCount(0);
  await expect(reset).toBeFocused();

  await tabTo(page, page.getByRole('button', { name: 'Remove keyboard-person' }));
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByRole('button', { name: 'Remove person' }), { backwards: true });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Removed' })).toHaveText(
    'Removed keyboard-person.',
  );
  await expect(page.getByRole('heading', { name: 'Everyone on this bridge' })).toBeFocused();
});
