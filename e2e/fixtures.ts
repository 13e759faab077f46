// Playwright fixtures shared by the e2e specs: `stack` (the real bridge + gateway + Xvnc desktop,
// one per worker, stopped with SIGINT afterwards), `viewer` (a page object for the viewer, which
// signs its browser context in as the stack's admin before opening it) and `pixelPage` (a blank
// page that decodes screenshots for pixel checks).
import { test as base, expect, type Page } from '@playwright/test';
import { startStack, type RunningStack } from './support/bridgeProcess.js';
import { ViewerPage } from './pages/ViewerPage.js';

export interface TestFixtures {
  viewer: ViewerPage;
  pixelPage: Page;
}

export interface WorkerFixtures {
  stack: RunningStack;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  stack: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form.
    async ({}, use) => {
      const stack = await startStack();
      try {
        await use(stack);
      } finally {
        await stack.stop();
      }
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  viewer: async ({ page, stack }, use) => {
    await use(new ViewerPage(page, stack));
  },
  pixelPage: async ({ browser }, use) => {
    const page = await browser.newPage();
    await use(page);
    await page.close();
  },
});

export { expect };
