// End-to-end tests: real Debian Chromium (never a downloaded browser) against a real
// bridge, gateway and Xvnc desktop started by the fixtures in this folder. `npm run e2e`
// builds first when the build is missing or older than the sources (globalSetup.ts).
import { defineConfig } from '@playwright/test';

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
      executablePath: process.env.OC_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    viewport: { width: 1280, height: 800 },
  },
});
