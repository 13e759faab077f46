// Dialling a VNC server: where it listens (TCP, or a Unix socket), the socket opened with a
// deadline covering the connect and the whole RFB handshake (handshake.ts), and a failure on the
// way turned into an RfbError that says what to check (unreachable, refused, closed, too slow).
// Once the handshake is done the socket is handed over, with no listener left on it, to whoever
// runs the connection (RfbClient, client.ts).
import { connect as netConnect, type Socket } from 'node:net';
import { ByteReader } from './byteReader.js';
import { RfbError, protocolError } from './errors.js';
import { handshake, type ServerInit } from './handshake.js';

/**
 * Where the VNC server listens: a TCP host and port, or a Unix socket path (TigerVNC's
 * `-rfbunixpath`, which keeps a local desktop off the network entirely).
 */
export type RfbTarget =
  | { host: string; port: number; path?: undefined }
  | { path: string; host?: undefined; port?: undefined };

/** How messages name a target: `host:port`, or the socket path. */
export function describeRfbTarget(target: RfbTarget): string {
  return target.path ?? `${target.host}:${String(target.port)}`;
}

export type RfbConnectOptions = RfbTarget & {
  /** For VNC authentication (security type 2). */
  password?: string;
  /** ClientInit shared flag, default true. */
  shared?: boolean;
  /** Default 10 000. Covers TCP connect and the whole handshake. */
  connectTimeoutMs?: number;
  /**
   * Encodings to offer, most preferred first (default: ZRLE, CopyRect, Raw and every
   * pseudo-encoding this client knows). For tests and diagnostics, e.g. Raw only.
   */
  encodings?: readonly number[];
  /**
   * After this long with nothing from the server, ask it for one pixel (it must answer);
   * default 2000. See silenceWatch.ts.
   */
  silenceProbeMs?: number;
  /**
   * Time the server has to answer that probe before the connection ends with a 'timeout'
   * RfbError (the gateway's 514); default 4000.
   */
  silenceTimeoutMs?: number;
};

/** Largest desktop accepted: 8K UHD worth of pixels, 16384 on a side. */
export const RFB_LIMITS = { maxPixels: 7680 * 4320, maxSide: 16384 };

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT', // a Unix socket path with nothing there
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
]);

/**
 * Opens the socket to `options`' server and runs the handshake; `made` takes the connection over
 * in the same step as the handshake ends (no data can arrive unheard in between). Rejects with an
 * RfbError.
 */
export function dialRfb<T>(
  options: RfbConnectOptions,
  made: (socket: Socket, reader: ByteReader, init: ServerInit, where: string) => T,
): Promise<T> {
  const where = describeRfbTarget(options);
  const checkAddress =
    options.path === undefined
      ? 'the host and port are right'
      : 'the socket path is right and this process may open it';
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  return new Promise<T>((resolve, reject) => {
    const socket =
      options.path === undefined
        ? netConnect({ host: options.host, port: options.port }).setNoDelay(true)
        : netConnect({ path: options.path });
    let connected = false;
    let settled = false;
    const reader = new ByteReader(socket);
    const fail = (error: RfbError) => {
      reader.fail(error);
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(() => {
      fail(
        new RfbError(
          'timeout',
          connected
            ? `VNC server at ${where} did not finish the RFB handshake within ${timeoutMs} ms. Check that ${where} is a VNC server and that it is not overloaded.`
            : `Could not connect to VNC server at ${where} within ${timeoutMs} ms. ${
                options.path === undefined
                  ? 'Check the host and port, and any firewall between the gateway and the server.'
                  : 'Check that the VNC server is running and not overloaded.'
              }`,
        ),
      );
    }, timeoutMs);
    socket.on('connect', () => (connected = true));
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && NETWORK_CODES.has(error.code ?? '')) {
        fail(
          new RfbError(
            'unreachable',
            `Could not reach VNC server at ${where} (${error.code}). Check that the VNC server is running and ${checkAddress}.`,
            { cause: error },
          ),
        );
      } else {
        fail(
          new RfbError(
            'closed',
            `Connection to VNC server at ${where} failed (${error.message}).`,
            { cause: error },
          ),
        );
      }
    });
    socket.on('close', () => {
      fail(
        new RfbError(
          'closed',
          `VNC server at ${where} closed the connection during the handshake. Check the server's log (it may refuse or blacklist this client).`,
        ),
      );
    });

    handshake(reader, (data) => socket.write(data), {
      password: options.password,
      shared: options.shared ?? true,
      where,
      ...RFB_LIMITS,
    }).then(
      (init) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.removeAllListeners();
        resolve(made(socket, reader, init, where));
      },
      (error: unknown) => fail(error instanceof RfbError ? error : protocolError(String(error))),
    );
  });
}
