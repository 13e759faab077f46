// Playwright fixtures shared by the e2e specs: `stack` (the real bridge + gateway + Xvnc desktop,
// one per worker, stopped with SIGINT afterwards; in the guacd projects the bridge reaches its
// desktop through a real guacd instead — `desktopPath`, see support/pathStack.ts — and tests
// skip, with the reason, where guacd or xrdp is missing, or fail under OC_REQUIRE_GUACD=1), `viewer` (a page object for the viewer, which
// signs its browser context in as the stack's admin before opening it) and `pixelPage` (a blank
// page that decodes screenshots for pixel checks).
import { test as base, expect, type Page } from '@playwright/test';
import {
  desktopPathMissing,
  type DesktopPathName,
} from '../apps/bridge/src/testing/desktopPaths.js';
import { skipOrFail } from '../apps/bridge/src/testing/guacd.js';
import type { RunningStack } from './support/bridgeProcess.js';
import { startPathStack } from './support/pathStack.js';
import { ViewerPage } from './pages/ViewerPage.js';

export interface TestFixtures {
  viewer: ViewerPage;
  pixelPage: Page;
  /** Skips the test when this project's desktop path cannot run here. */
  pathAvailable: void;
}

export interface WorkerFixtures {
  /** How the bridge reaches its desktop: the project's option (default our gateway). */
  desktopPath: DesktopPathName;
  stack: RunningStack;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  desktopPath: ['gateway-xvnc', { scope: 'worker', option: true }],
  pathAvailable: [
    async ({ desktopPath }, use, testInfo) => {
      const missing = desktopPathMissing(desktopPath);
      if (missing !== undefined)
        testInfo.skip(true, skipOrFail(`The ${desktopPath} path`, missing));
      await use();
    },
    { auto: true },
  ],
  stack: [
    async ({ desktopPath }, use) => {
      const stack = await startPathStack(desktopPath);
      if ('skip' in stack) throw new Error(`The ${desktopPath} path cannot run: ${stack.skip}`);
      try {
        await use(stack);
      } finally {
        await stack.stop();
      }
    },
    // An RDP login takes seconds on top of the bridge's start.
    { scope: 'worker', timeout: 150_000 },
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
