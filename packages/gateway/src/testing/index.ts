// Shared test helpers for the gateway: XWD parsing, framebuffer-vs-X-screen comparison, what a
// process listens on (/proc), a Guacamole test client, and a FAKE RFB server for hostile-server
// tests.
export { parseXwd, type RgbaImage } from './xwd.js';
export {
  captureRoot,
  compareRgba,
  waitForScreenMatch,
  type RgbaDifference,
  type XTarget,
} from './desktopCapture.js';
export { tcpListenersOf, unixListenersOf, type TcpListener } from './listeners.js';
export {
  startFakeRfbServer,
  type FakeRfbConnection,
  type FakeRfbServer,
  type FakeRfbServerOptions,
} from './fakeRfbServer.js';
export { nextEvent, eventually } from './events.js';
export {
  GuacTestClient,
  type DrawnImage,
  type GuacServerAddress,
  type TestClientOptions,
} from './guacTestClient.js';
export { makeThrowawayPki, type PemPair, type ThrowawayPki } from './throwawayPki.js';
