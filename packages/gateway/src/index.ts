// @overlay-companion/gateway — a guacd-compatible server for VNC desktops: the server (TCP or
// Unix socket) and its options, the local desktop helpers the bridge and tests start desktops with, and the
// PNG region encoder (the unit the benchmark measures).
export { RfbClient, RfbError } from './rfb/index.js';
export type { RfbTarget } from './rfb/index.js';
export { startGateway } from './server/gateway.js';
export type { Gateway, GatewayOptions, TcpGateway, UnixGateway } from './server/gateway.js';
export type { GatewayTls } from './server/listen.js';
export { TLS_FILE_POLL_MS, watchTlsFiles } from './server/tlsFiles.js';
export type { TlsFilesWatch } from './server/tlsFiles.js';
export { JOIN_SECRET_ARG } from './server/joinAccess.js';
export { POOL_AUTH_OPCODE, MIN_POOL_SECRET_LENGTH } from './server/poolAuth.js';
export { connectionLabel } from './session/connectionLabel.js';
export { VNC_ARG_NAMES } from './server/vncArgs.js';
export type { VncSettings } from './server/vncArgs.js';
export { SUPPORTED_PROTOCOLS } from './server/handshake.js';
export { startLocalDesktop, LocalDesktopError } from './desktop/localDesktop.js';
export type {
  DesktopSandbox,
  DesktopSandboxOptions,
  DesktopExit,
  LocalDesktop,
  LocalDesktopOptions,
  TcpLocalDesktop,
} from './desktop/localDesktop.js';
export { DESKTOP_USER } from './desktop/desktopUser.js';
export { freePort } from './desktop/freePort.js';
export { SANDBOX_SHM_BYTES, SANDBOX_TMP_BYTES } from './desktop/sandbox.js';
export { SANDBOX_MEMORY_BYTES, SANDBOX_OOM_SCORE_ADJ } from './desktop/desktopMemory.js';
export { encodeRegionPng, encodePng, extractRegion } from './encode/png.js';
export type { PngOptions } from './encode/png.js';
export { measureRegionEncode } from './encode/measure.js';
export type { EncodeMeasurement } from './encode/measure.js';
export type { Rect } from './encode/rect.js';
