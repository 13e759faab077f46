// Public surface of the RFB (VNC) client used by the gateway session.
export { RfbClient, RfbError, Encoding, describeRfbTarget } from './client.js';
export type {
  RfbClientEvents,
  RfbConnectOptions,
  RfbCursor,
  RfbErrorCode,
  RfbRect,
  RfbStats,
  RfbTarget,
} from './client.js';
export { DEFAULT_ENCODINGS, LOCAL_ENCODINGS, isLocalTarget } from './encodings.js';
export { encryptStoredVncPassword, vncAuthResponse } from './vncAuth.js';
