// @overlay-companion/testing — Playwright fixtures for scripting desktop tests through Overlay
// Companion: `test` (with `mcp`, `desktop` and the worker's `overlaySession`) and `expect`, and
// startOverlaySession() for other test runners.
export { test, expect, type OverlayTestFixtures, type OverlayWorkerFixtures } from './fixtures.js';
export {
  startOverlaySession,
  type DesktopInfo,
  type OverlaySession,
  type SessionMode,
  type SessionOptions,
} from './session.js';
