// The one error type of the RFB layer. Every failure a VNC server can cause — network, auth,
// protocol — surfaces as an RfbError with a code the gateway can map to a Guacamole status.
export type RfbErrorCode =
  'unreachable' | 'timeout' | 'auth-failed' | 'unsupported-security' | 'protocol' | 'closed';

export class RfbError extends Error {
  override name = 'RfbError';
  readonly code: RfbErrorCode;

  constructor(code: RfbErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Shorthand for the most common case: the server sent something we cannot accept. */
export function protocolError(message: string): RfbError {
  return new RfbError(
    'protocol',
    `VNC protocol error: ${message}. The VNC server sent invalid data; reconnect, and check the server version if it repeats.`,
  );
}
