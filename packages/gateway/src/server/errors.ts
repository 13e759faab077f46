// Turns failures of the VNC side into what the browser is told: a Guacamole status chosen as
// guacd would (unreachable → 519, refused password → 769, a broken or closed VNC stream → 515)
// and a message that says what to check.
import { GuacStatus } from '@overlay-companion/guac';
import { RfbError } from '../rfb/errors.js';

export interface GuacFailure {
  status: number;
  message: string;
}

export function rfbFailure(
  error: unknown,
  target: { hostname: string; port: number },
): GuacFailure {
  const where = `${target.hostname}:${String(target.port)}`;
  if (!(error instanceof RfbError)) {
    return {
      status: GuacStatus.SERVER_ERROR,
      message: `The gateway failed while talking to the VNC server at ${where}: ${String(error instanceof Error ? error.message : error)}. Reconnect, and report it if it repeats.`,
    };
  }
  switch (error.code) {
    case 'unreachable':
      return {
        status: GuacStatus.UPSTREAM_NOT_FOUND,
        message: `Cannot reach the VNC server at ${where} (${error.message}). Check the hostname and port arguments and that the VNC server is running.`,
      };
    case 'timeout':
      return {
        status: GuacStatus.UPSTREAM_TIMEOUT,
        message: `The VNC server at ${where} did not answer in time (${error.message}). Check that it is running and not overloaded.`,
      };
    case 'auth-failed':
      return {
        status: GuacStatus.CLIENT_UNAUTHORIZED,
        message: `The VNC server at ${where} rejected the password (${error.message}). Check the password argument.`,
      };
    case 'unsupported-security':
      return {
        status: GuacStatus.UPSTREAM_ERROR,
        message: `The VNC server at ${where} asks for a security type this gateway does not speak (${error.message}). Configure it for "None" or "VncAuth".`,
      };
    case 'protocol':
      return {
        status: GuacStatus.UPSTREAM_ERROR,
        message: `Error handling a message from the VNC server at ${where} (${error.message}).`,
      };
    case 'closed':
      return {
        status: GuacStatus.UPSTREAM_ERROR,
        message: `The VNC server at ${where} closed the connection (${error.message}). Check its log; reconnect to start a new session.`,
      };
  }
}
