// Shared test helpers for the gateway: XWD parsing, framebuffer-vs-X-screen comparison, and a
// FAKE RFB server for hostile-server tests.
export { parseXwd, type RgbaImage } from './xwd.js';
export {
  captureRoot,
  compareRgba,
  waitForScreenMatch,
  type RgbaDifference,
} from './desktopCapture.js';
export {
  startFakeRfbServer,
  type FakeRfbConnection,
  type FakeRfbServer,
  type FakeRfbServerOptions,
} from './fakeRfbServer.js';
export { nextEvent, eventually } from './events.js';
