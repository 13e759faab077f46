// TLS on the links from a bridge to its pool members written gateways:// and guacds:// (an
// `overlay-companion gateway` started with --tls-cert/--tls-key, an Apache guacd started with
// -C/-K): the member's certificate must chain to OC_POOL_CA (else the system's CAs) and name
// the host the bridge dialled; the bridge shows OC_POOL_CLIENT_CERT when the member asks for one
// (mutual TLS). There is no fallback to plaintext: a link that fails TLS fails, with a reason in
// words that /readyz may show (TLS_FAILURES: no host, port or certificate text).
//
// A TLS 1.3 server checks the client's certificate only after the client thinks the handshake
// is done, and refuses it with an alert the client reads later; so a link counts as open only once
// the server's first session ticket has arrived (Node's TLS and guacd's OpenSSL both send one
// right after accepting the client, and none to a client they refuse).
import { isIP } from 'node:net';
import { connect, type SecureContext, type TLSSocket } from 'node:tls';

/** Why a pool link's TLS failed, in words for logs and /readyz. */
export const TLS_FAILURES = {
  tlsUntrusted: 'TLS: certificate not trusted (not signed by OC_POOL_CA)',
  tlsName: "TLS: the certificate does not name the gateway's host",
  tlsExpired: 'TLS: certificate expired or not yet valid',
  tlsPlaintext: 'TLS: the gateway does not speak TLS',
  tlsRefused:
    "TLS: the gateway refused the bridge's client certificate (missing, or not signed by the CA it trusts)",
  tlsFailed: 'TLS: the handshake failed',
} as const;
export type TlsFailure = keyof typeof TLS_FAILURES;

/** A pool link whose TLS failed, with the reason in words. */
export class PoolTlsError extends Error {
  override name = 'PoolTlsError';
  constructor(
    readonly failure: TlsFailure,
    /** OpenSSL's or Node's code, for the log (names a check, never a secret). */
    code?: string,
  ) {
    super(code === undefined ? TLS_FAILURES[failure] : `${TLS_FAILURES[failure]}: ${code}`);
  }
}

// OpenSSL's and Node's codes, by what the operator should fix.
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
]);
const EXPIRED = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/** The reason for a failed TLS connect, from the error Node gave. */
export function tlsFailureOf(err: NodeJS.ErrnoException): TlsFailure {
  const code = err.code ?? '';
  if (UNTRUSTED.has(code)) return 'tlsUntrusted';
  if (EXPIRED.has(code)) return 'tlsExpired';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'tlsName';
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG')
    return 'tlsPlaintext';
  if (/ALERT_(CERTIFICATE_REQUIRED|UNKNOWN_CA|BAD_CERTIFICATE|HANDSHAKE_FAILURE)/.test(code))
    return 'tlsRefused';
  return 'tlsFailed';
}

/**
 * Opens a TLS link to a pool member; rejects with a PoolTlsError when TLS fails, or with the
 * socket's own error (ECONNREFUSED, ...) when the member cannot be reached at all.
 */
export function connectPoolTls(
  member: { host: string; port: number },
  context: SecureContext,
): { socket: TLSSocket; opened: Promise<TLSSocket> } {
  const socket = connect({
    host: member.host,
    port: member.port,
    secureContext: context,
    // SNI names a host, never an address (RFC 6066); the name check uses `host` either way.
    ...(isIP(member.host) === 0 ? { servername: member.host } : {}),
    minVersion: 'TLSv1.2',
  });
  let secured = false;
  const opened = new Promise<TLSSocket>((resolve, reject) => {
    const done = (err?: Error): void => {
      socket.off('session', onSession);
      socket.off('error', onError);
      socket.off('close', onClose);
      if (err === undefined) resolve(socket);
      else reject(err);
    };
    // Not from inside the event: Node emits it in the middle of reading a record, and a write
    // made there (the handshake's first instruction) goes out as a record the server rejects
    // ("bad record mac", seen with Node's TLS server and guacd alike).
    const onSession = (): void => void setImmediate(() => done());
    const onError = (err: NodeJS.ErrnoException): void => {
      // During or after the handshake: a TLS failure; never reached (ECONNREFUSED): the socket's.
      done(secured || isTlsError(err) ? new PoolTlsError(tlsFailureOf(err), err.code) : err);
    };
    // A member that hangs up on the handshake (a plaintext server reading a ClientHello).
    const onClose = (): void => done(new PoolTlsError(secured ? 'tlsRefused' : 'tlsPlaintext'));
    socket.on('session', onSession);
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.once('secureConnect', () => {
      secured = true;
      // TLS 1.2 has checked both sides by now; 1.3 waits for the server's ticket (see above).
      if (socket.getProtocol() !== 'TLSv1.3') done();
    });
  });
  return { socket, opened };
}

function isTlsError(err: NodeJS.ErrnoException): boolean {
  const code = err.code ?? '';
  return (
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_TLS_') ||
    code === 'ECONNRESET' ||
    UNTRUSTED.has(code) ||
    EXPIRED.has(code)
  );
}
