// End-to-end tests: real Debian Chromium (never a downloaded browser) against a real
// bridge, gateway and Xvnc desktop started by the fixtures in this folder. `npm run e2e`
// builds first when the build is missing or older than the sources (globalSetup.ts).
import { defineConfig } from '@playwright/test';
import { CHROMIUM_FLAGS, chromiumPath } from '../apps/bridge/src/headless/chromium.js';

export default defineConfig({
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
});
