// Unit and integration tests for every workspace. Source is imported directly
// (the `overlay-source` export condition) so tests never run stale builds.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['overlay-source'] },
  ssr: { resolve: { conditions: ['overlay-source'] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'apps/*/src/**/*.test.{ts,tsx}',
      'infra/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start real Xvnc desktops; on two cores, a few files at a time.
    maxWorkers: 2,
  },
});
