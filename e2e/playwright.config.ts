// End-to-end tests: real Debian Chromium (never a downloaded browser) against a real
// bridge, gateway and Xvnc desktop started by the fixtures in this folder. `npm run e2e`
// builds first when the build is missing or older than the sources (globalSetup.ts).
import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, chromiumPath } from '../apps/bridge/src/headless/chromium.js';
import type { TestFixtures, WorkerFixtures } from './fixtures.js';

/** The specs that run on the guacd paths as well. */
const GUACD_PATH_SPECS = ['**/control-tools.spec.ts', '**/viewer.spec.ts'];

export default defineConfig<TestFixtures, WorkerFixtures>({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  globalSetup: './globalSetup.ts',
  outputDir: './test-results',
  timeout: 90_000,
  workers: 1,
  reporter: [['list']],
  use: {
    launchOptions: {
      executablePath: chromiumPath(),
      args: [...CHROMIUM_FLAGS],
    },
    viewport: { width: 1280, height: 800 },
  },
  // The same essential specs on each way the bridge reaches a desktop (fixtures.ts,
  // support/pathStack.ts): every spec through our gateway, the MCP tools and the viewer through
  // Apache guacd to Xvnc and to xrdp too. Effects are checked on each desktop's X side.
  projects: [
    { name: 'gateway-xvnc', use: { desktopPath: 'gateway-xvnc' } },
    ...(['guacd-xvnc', 'guacd-xrdp'] as const).map((desktopPath) => ({
      name: desktopPath,
      testMatch: GUACD_PATH_SPECS,
      // Real guacd and xrdp on a loaded 2-core CI machine are slower to settle than our own
      // gateway: one retry there, and `npm test` names every test that needed it ("flaky").
      retries: 1,
      use: { desktopPath },
    })),
  ],
});
