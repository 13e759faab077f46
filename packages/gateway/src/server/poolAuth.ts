// Who may talk to a gateway of the bridges' pool at all. `overlay-companion gateway` started with a
// pool secret (OC_GATEWAY_SECRET) serves only the bridges: before `select`, a client's first
// instruction must be `oc-pool-auth,<secret>`. Anything else — no instruction, another opcode
// (a plain guacd client starts with `select`), a wrong secret — is answered with one `error`
// (CLIENT_UNAUTHORIZED, the same words for every case) and the socket closes: the caller learns
// nothing about connections, VNC servers or ids. The secret is compared in constant time
// (JoinSecret hashes both sides first) and never logged. Without TLS the secret travels in the
// clear like the rest of the Guacamole stream (VNC passwords included); a pool gateway should
// serve TLS (--tls-cert/--tls-key, listen.ts), best mutual TLS (--tls-client-ca), with the
// bridges naming it gateways:// (README, "Gateways as a pool").
import { GuacProtocolError, GuacStatus } from '@overlay-companion/guac';
import type { GuacSocket } from './guacSocket.js';
import { JoinSecret } from './joinAccess.js';

/** The opcode of the first instruction on a pool link (not a Guacamole opcode: guacd has none). */
export const POOL_AUTH_OPCODE = 'oc-pool-auth';

/** The one refusal, whatever was wrong. */
export function poolRefusal(): GuacProtocolError {
  return new GuacProtocolError(
    'This gateway serves only the bridges of its pool: the connection did not start with the pool secret (OC_GATEWAY_SECRET).',
    GuacStatus.CLIENT_UNAUTHORIZED,
  );
}

/** Shortest pool secret accepted: 128 bits of base64. */
export const MIN_POOL_SECRET_LENGTH = 22;

export class PoolSecret {
  private readonly secret: JoinSecret;

  constructor(secret: string) {
    if (secret.length < MIN_POOL_SECRET_LENGTH)
      throw new Error(
        `The pool secret must be at least ${String(MIN_POOL_SECRET_LENGTH)} characters; generate one with \`openssl rand -base64 32\`.`,
      );
    this.secret = new JoinSecret(secret);
  }

  /** Reads the first instruction and throws poolRefusal() unless it carries the secret. */
  async check(socket: GuacSocket, timeoutMs: number): Promise<void> {
    const first = await socket.next(timeoutMs, `"${POOL_AUTH_OPCODE}"`).catch(() => {
      throw poolRefusal();
    });
    // Always compared, so an unexpected opcode costs the same as a wrong secret.
    const ok = this.secret.matches(first.args[0]);
    if (first.opcode !== POOL_AUTH_OPCODE || first.args.length !== 1 || !ok) throw poolRefusal();
  }
}
