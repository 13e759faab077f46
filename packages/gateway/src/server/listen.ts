// Where the gateway listens: a TCP host and port (guacd's way, for an operator who chose it),
// or a Unix socket that only its owner can open — how `serve` keeps the embedded gateway
// reachable by the bridge alone. The socket goes in a directory that belongs to the caller and
// is closed to everyone else (serve's 0700 data dir), so nobody else can reach the socket even
// in the moment between its creation and its chmod to 0600. A socket file left by a run that
// crashed is replaced; one that a live process still answers on is not.
//
// Over TCP it may serve TLS (`tls`: the pool's links, or any client that can do TLS), then
// optionally mutual TLS (`clientCa`: only clients whose certificate that CA signed get a socket at
// all). A client that fails TLS — plaintext, no certificate, a wrong one — never reaches the
// Guacamole side: nothing is read from it and nothing but TLS's own alert is written to it.
// Renewed credentials replace the ones in force for the links opened after (reloadTls); the
// links already open keep theirs.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { lstat, stat, chmod, unlink } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname, resolve } from 'node:path';
import {
  Server as TlsServer,
  createServer as createTlsServer,
  type SecureContextOptions,
} from 'node:tls';
import type { Logger } from 'pino';

export type ListenTarget = { host: string; port: number } | { path: string };

export type ListenAddress =
  { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

/** Linux allows 107 bytes of path in a Unix socket address (108 with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

export class GatewayListenError extends Error {
  override name = 'GatewayListenError';
}

/** The gateway's TLS certificate and key (PEM), and the CA its clients' certificates need. */
export interface GatewayTls {
  cert: string | Buffer;
  key: string | Buffer;
  /** When set, mutual TLS: a client without a certificate this CA signed is refused. */
  clientCa?: string | Buffer;
}

/**
 * The server for `onSocket`: plain TCP (or Unix socket), or TLS when `tls` is given, with the
 * handshake bounded by `handshakeTimeoutMs` like the Guacamole handshake after it.
 */
export function createListener(
  tls: GatewayTls | undefined,
  handshakeTimeoutMs: number,
  logger: Logger,
  onSocket: (socket: Socket) => void,
): Server {
  if (tls === undefined) return createServer(onSocket);
  const mutual = tls.clientCa !== undefined;
  const server = createTlsServer(
    {
      ...credentials(tls),
      handshakeTimeout: handshakeTimeoutMs,
      ...(mutual ? { requestCert: true, rejectUnauthorized: true } : {}),
    },
    onSocket,
  );
  if (mutual) mutualServers.add(server);
  server.on('tlsClientError', function refusedTls(err: NodeJS.ErrnoException, socket) {
    // Which check failed helps the operator; the peer's certificate is never logged.
    logger.info(
      { peer: socket.remoteAddress, code: err.code ?? 'unknown' },
      'a client failed TLS and was refused',
    );
    // Node ends the socket itself once TLS's alert has told the client why; ending it here
    // would cut the alert off.
  });
  return server;
}

/** Servers that require clients' certificates (a reload must keep a CA to check them with). */
const mutualServers = new WeakSet<Server>();

/** The certificate, key and client CA as the TLS server takes them. */
function credentials(tls: GatewayTls): SecureContextOptions {
  return {
    cert: tls.cert,
    key: tls.key,
    minVersion: 'TLSv1.2',
    ...(tls.clientCa === undefined ? {} : { ca: tls.clientCa }),
  };
}

/**
 * Serves renewed credentials to the links opened from now on (those open keep theirs). Throws,
 * and the credentials in force stay, when the new ones are not usable: a file that holds no
 * certificate or key (each is parsed first: a `ca` without one would be taken silently and then
 * trust nobody), a key that is not the certificate's. Whether the server asks for client
 * certificates is not changed here: that is fixed at start.
 */
export function reloadTls(server: Server, tls: GatewayTls): void {
  if (!(server instanceof TlsServer))
    throw new GatewayListenError('This gateway does not serve TLS: nothing to reload.');
  // Without a CA, Node would check clients' certificates against the public CAs instead.
  if (mutualServers.has(server) && tls.clientCa === undefined)
    throw new GatewayListenError('This gateway serves mutual TLS: the reload needs the client CA.');
  new X509Certificate(tls.cert);
  createPrivateKey(tls.key);
  if (tls.clientCa !== undefined) new X509Certificate(tls.clientCa);
  server.setSecureContext(credentials(tls));
}

export async function listenOn(
  server: Server,
  target: ListenTarget,
): Promise<{ address: ListenAddress; removeSocket: () => Promise<void> }> {
  if (!('path' in target)) {
    await bind(server, { host: target.host, port: target.port });
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return {
      address: { kind: 'tcp', host: target.host, port },
      removeSocket: () => Promise.resolve(),
    };
  }

  const path = resolve(target.path);
  await checkSocketPlace(path);
  await removeStaleSocket(path);
  await bind(server, { path });
  await chmod(path, 0o600);
  const { ino } = await lstat(path);
  return {
    address: { kind: 'unix', path },
    // Node removes its socket file on close; this covers the cases where it did not, and
    // never removes a file that another process has put there since.
    removeSocket: async () => {
      const now = await lstat(path).catch(() => undefined);
      if (now?.isSocket() === true && now.ino === ino) await unlink(path).catch(() => undefined);
    },
  };
}

function bind(server: Server, options: { host: string; port: number } | { path: string }) {
  return new Promise<void>((resolvePromise, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(options, () => {
      server.off('error', onError);
      resolvePromise();
    });
  });
}

async function checkSocketPlace(path: string): Promise<void> {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw new GatewayListenError(
      `The socket path ${path} is ${String(Buffer.byteLength(path))} bytes; Unix sockets allow ${String(MAX_SOCKET_PATH_BYTES)}. Use a shorter directory.`,
    );
  }
  const dir = dirname(path);
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    throw new GatewayListenError(
      `The socket's directory ${dir} cannot be used (${error.code ?? error.message}). Create it with mode 0700 first.`,
    );
  });
  const uid = process.getuid?.();
  if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0) {
    const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
    throw new GatewayListenError(
      `The socket's directory ${dir} must be a directory that belongs to this user (uid ${String(uid)}) and is closed to others; it belongs to uid ${String(info.uid)} with mode ${mode}. Run \`chmod 700 ${dir}\` as its owner, or use another directory.`,
    );
  }
}

/** Removes a socket file nobody answers on; refuses to touch anything else. */
async function removeStaleSocket(path: string): Promise<void> {
  const existing = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing === undefined) return;
  if (!existing.isSocket()) {
    throw new GatewayListenError(
      `${path} exists and is not a socket; the gateway will not replace it. Remove it, or use another path.`,
    );
  }
  if (await answers(path)) {
    throw new GatewayListenError(
      `Another process is listening on ${path} (a gateway still running?). Stop it, or use another path.`,
    );
  }
  await unlink(path);
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const probe = connect({ path });
    probe.once('connect', () => {
      probe.destroy();
      resolvePromise(true);
    });
    // ECONNREFUSED: the socket file outlived its server.
    probe.once('error', () => resolvePromise(false));
  });
}
