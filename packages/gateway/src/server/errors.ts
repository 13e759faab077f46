// Turns failures of the VNC side into what the browser is told: a Guacamole status chosen as
// guacd would (unreachable → 519, timeout → 514, refused password → 769, a broken or closed
// VNC stream → 515) and a message that says what to check. The RFB layer's messages already
// name the server and the likely fix; a hint is added only where they leave the next step open.
import { GuacStatus } from '@overlay-companion/guac';
import { RfbError, type RfbErrorCode } from '../rfb/errors.js';

export interface GuacFailure {
  status: number;
  message: string;
}

const STATUS: Record<RfbErrorCode, number> = {
  unreachable: GuacStatus.UPSTREAM_NOT_FOUND,
  timeout: GuacStatus.UPSTREAM_TIMEOUT,
  'auth-failed': GuacStatus.CLIENT_UNAUTHORIZED,
  'unsupported-security': GuacStatus.UPSTREAM_ERROR,
  protocol: GuacStatus.UPSTREAM_ERROR,
  closed: GuacStatus.UPSTREAM_ERROR,
};

const HINT: Partial<Record<RfbErrorCode, string>> = {
  closed: 'Check the VNC server and its log, then reconnect to start a new session.',
  protocol: 'The session has ended; reconnect to start a new one.',
};

/** `where` names the VNC server as the RFB layer does (`host:port` or the socket path). */
export function rfbFailure(error: unknown, where: string): GuacFailure {
  if (!(error instanceof RfbError)) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      status: GuacStatus.SERVER_ERROR,
      message: `The gateway failed while talking to the VNC server at ${where}: ${detail} Reconnect, and report it if it repeats.`,
    };
  }
  const base = error.message.includes(where)
    ? error.message
    : `VNC server ${where}: ${error.message}`;
  const hint = HINT[error.code];
  return { status: STATUS[error.code], message: hint === undefined ? base : `${base} ${hint}` };
}
