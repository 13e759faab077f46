// Public surface of the RFB (VNC) client used by the gateway session.
export { RfbClient, RfbError, Encoding } from './client.js';
export type { RfbClientEvents, RfbCursor, RfbErrorCode, RfbRect, RfbStats } from './client.js';
export { describeRfbTarget } from './rfbDial.js';
export type { RfbConnectOptions, RfbTarget } from './rfbDial.js';
export { DEFAULT_ENCODINGS, LOCAL_ENCODINGS, isLocalTarget } from './encodings.js';
export { encryptStoredVncPassword, vncAuthResponse } from './vncAuth.js';
