// Playwright fixtures for your own desktop tests. `overlaySession` (one per worker) is a running
// headless session (session.ts); each test gets `mcp`, an MCP client connected to it (closed
// after the test, with the overlays it drew cleared), and `desktop`, the X display's DISPLAY and
// XAUTHORITY for checking effects from outside (xdotool, xwd, xclip). Options: `overlayOptions`
// (mode, log level), set with test.use() or in playwright.config.ts.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { test as base, expect } from '@playwright/test';
import { join } from 'node:path';
import {
  startOverlaySession,
  type DesktopInfo,
  type OverlaySession,
  type SessionOptions,
} from './session.js';

export interface OverlayTestFixtures {
  /** An MCP client of the session (the SDK's Client), connected for this test. */
  mcp: Client;
  /** The session's desktop: its X display and the env X clients need. */
  desktop: DesktopInfo;
}

export interface OverlayWorkerFixtures {
  /** Starting mode and log level of the worker's session. */
  overlayOptions: Pick<SessionOptions, 'mode' | 'logLevel'>;
  overlaySession: OverlaySession;
}

export const test = base.extend<OverlayTestFixtures, OverlayWorkerFixtures>({
  overlayOptions: [{ mode: 'autopilot' }, { option: true, scope: 'worker' }],
  overlaySession: [
    async ({ overlayOptions }, use, workerInfo) => {
      const session = await startOverlaySession({
        ...overlayOptions,
        // The bridge's log, beside the run's other results.
        logFile: join(
          workerInfo.project.outputDir,
          `overlay-companion-${workerInfo.workerIndex}.log`,
        ),
      });
      try {
        await use(session);
      } finally {
        await session.stop();
      }
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  mcp: async ({ overlaySession }, use, testInfo) => {
    const client = await overlaySession.connect(`playwright: ${testInfo.title}`.slice(0, 100));
    try {
      await use(client);
    } finally {
      await client.callTool({ name: 'clear_overlays', arguments: {} }).catch(() => undefined);
      await client.close();
    }
  },
  desktop: async ({ overlaySession }, use) => {
    await use(overlaySession.desktop);
  },
});

export { expect };
