// Public surface of the RFB (VNC) client used by the gateway session.
export { RfbClient, RfbError, Encoding } from './client.js';
export type {
  RfbClientEvents,
  RfbConnectOptions,
  RfbCursor,
  RfbErrorCode,
  RfbRect,
  RfbStats,
} from './client.js';
export { DEFAULT_ENCODINGS } from './encodings.js';
export { encryptStoredVncPassword, vncAuthResponse } from './vncAuth.js';
