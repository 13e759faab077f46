// Opening the TCP connection to the guacd-compatible server, and turning any failure before the
// relay starts into a Guacamole status plus a sentence the person can act on.
import { connect, type Socket } from 'node:net';
import { GuacProtocolError, GuacStatus } from '@overlay-companion/guac';
import { describeGuacd, type GuacdAddress } from '../config.js';

/** A failure while opening the tunnel, with the status the browser should see. */
export class TunnelStartError extends Error {
  override name = 'TunnelStartError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function connectGuacd(guacd: GuacdAddress, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      'path' in guacd
        ? connect({ path: guacd.path })
        : connect({ host: guacd.host, port: guacd.port });
    const fail = (why: string, status: number) => {
      socket.destroy();
      reject(
        new TunnelStartError(
          `The bridge cannot reach the guacd-compatible server at ${describeGuacd(guacd)} (${why}). Start it, or point the bridge at a running one with --guacd HOST:PORT.`,
          status,
        ),
      );
    };
    const timer = setTimeout(
      () => fail(`no answer within ${timeoutMs} ms`, GuacStatus.UPSTREAM_TIMEOUT),
      timeoutMs,
    );
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(err.code ?? err.message, GuacStatus.UPSTREAM_NOT_FOUND);
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      // Frames are latency-sensitive and already batched by guacd; never wait for Nagle.
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

/** Status and message for a failure before the relay began. */
export function describeStartFailure(err: unknown): { status: number; message: string } {
  if (err instanceof TunnelStartError || err instanceof GuacProtocolError) {
    return { status: err.status, message: err.message };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { status: GuacStatus.SERVER_ERROR, message: `The tunnel could not be opened: ${message}` };
}
