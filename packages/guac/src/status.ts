// Guacamole status codes, the one error type of this package, and the protocol version we speak.
// The numbers are the protocol's own (guacd's protocol-constants / the Guacamole manual), so a
// status can be put straight into an `error` instruction or a WebSocket close reason.

export const GuacStatus = {
  SUCCESS: 0,
  UNSUPPORTED: 256,
  SERVER_ERROR: 512,
  SERVER_BUSY: 513,
  UPSTREAM_TIMEOUT: 514,
  UPSTREAM_ERROR: 515,
  RESOURCE_NOT_FOUND: 516,
  RESOURCE_CONFLICT: 517,
  RESOURCE_CLOSED: 518,
  UPSTREAM_NOT_FOUND: 519,
  UPSTREAM_UNAVAILABLE: 520,
  SESSION_CONFLICT: 521,
  SESSION_TIMEOUT: 522,
  SESSION_CLOSED: 523,
  CLIENT_BAD_REQUEST: 768,
  CLIENT_UNAUTHORIZED: 769,
  CLIENT_FORBIDDEN: 771,
  CLIENT_TIMEOUT: 776,
  CLIENT_OVERRUN: 781,
  CLIENT_BAD_TYPE: 783,
  CLIENT_TOO_MANY: 797,
} as const;

export type GuacStatusCode = (typeof GuacStatus)[keyof typeof GuacStatus];

/** The newest protocol version this package speaks; sent first in `args` and `connect`. */
export const GUAC_PROTOCOL_VERSION = 'VERSION_1_5_0';

/**
 * A Guacamole protocol failure on one connection: malformed or oversized input, an `error`
 * instruction from the peer, a handshake that went wrong, a timeout. `status` is a GuacStatus
 * value suitable for an `error` instruction or a close reason.
 */
export class GuacProtocolError extends Error {
  readonly status: number;

  constructor(
    message: string,
    status: number = GuacStatus.CLIENT_BAD_REQUEST,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'GuacProtocolError';
    this.status = status;
  }
}
