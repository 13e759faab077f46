// The sign-in page's `next` in Chromium, against the real stack: for each crafted `next` that a
// check of the raw string alone lets through (dot segments that resolve to `//evil…`, encoded
// dots and slashes, backslashes, tabs and newlines), a person who really signs in on /signin
// lands on the bridge's own origin, never on another site. A plain path on the bridge is still
// followed. The same rule on the bridge (OpenID Connect's callback) is unit-tested in
// apps/bridge/src/http/safeNext.test.ts.
import { PAGES } from '@overlay-companion/protocol';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';

/** `next` as it would be typed into the address bar (already URL-encoded where shown). */
const VARIANTS = [
  '/.//evil.example/phish',
  '/x/..//evil.example/phish',
  '/%2e//evil.example/phish',
  '/%2E%2E//evil.example/phish',
  '/a/%2e%2e//evil.example/phish',
  '%2f%2fevil.example/phish',
  '/%2f/evil.example/phish',
  '/%5cevil.example/phish',
  '/./%5c%5cevil.example/phish',
  '/.%09//evil.example/phish',
  '/%09/evil.example/phish',
  '/.%0a//evil.example/phish',
  '//evil.example/phish',
  'https://evil.example/phish',
];

async function signInThroughForm(page: Page, admin: { username: string; password: string }) {
  const form = page.getByRole('form', { name: 'Sign in' });
  await form.getByLabel('Username').fill(admin.username);
  await form.getByLabel('Password', { exact: true }).fill(admin.password);
  await form.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/signin/, { timeout: 15_000 });
}

test.describe('after sign-in, next stays on the bridge', () => {
  for (const next of VARIANTS) {
    test(`next=${next} lands on the bridge's origin`, async ({ browser, stack }) => {
      const origin = new URL(stack.url).origin;
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        // Requests to any other host are recorded (and never leave this machine).
        const elsewhere: string[] = [];
        await context.route(
          (url) => url.origin !== origin,
          async (route) => {
            elsewhere.push(route.request().url());
            await route.abort();
          },
        );
        await page.goto(`${origin}${PAGES.signIn}?next=${next}`);
        await signInThroughForm(page, stack.admin);
        expect(new URL(page.url()).origin).toBe(origin);
        expect(new URL(page.url()).pathname).toBe(PAGES.viewer);
        expect(elsewhere.filter((url) => url.includes('evil.example'))).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }

  test('a path on the bridge is still followed', async ({ browser, stack }) => {
    const origin = new URL(stack.url).origin;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}${PAGES.signIn}?next=${encodeURIComponent(`${PAGES.config}?x=1`)}`);
      await signInThroughForm(page, stack.admin);
      expect(page.url()).toBe(`${origin}${PAGES.config}?x=1`);
    } finally {
      await context.close();
    }
  });
});
