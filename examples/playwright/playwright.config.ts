// A Playwright configuration for your own desktop tests with @overlay-companion/testing: nothing
// special is needed — the fixtures start the session (bridge, local desktop, headless viewer)
// themselves. `npm test` runs this example as its `examples` step.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  outputDir: './test-results',
  // The session starts once per worker (a desktop, a bridge and a Chromium); one is plenty.
  workers: 1,
  timeout: 60_000,
  reporter: [['list']],
});
