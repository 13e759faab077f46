// Who may join a running connection (`select $<id>`). A guacd-compatible gateway lets anyone
// who knows the id join; an id can leak (a log, a screen share), so a gateway started with a
// join secret also asks for that secret in a `join-secret` connection argument. A wrong or
// missing secret is answered exactly like an id that does not exist — same status, same
// message, same point in the handshake — so the answer tells nothing about which part was
// wrong, and the secret is compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { GuacProtocolError, GuacStatus } from '@overlay-companion/guac';

/** The extra argument named in `args` after `select $<id>` when a join secret is configured. */
export const JOIN_SECRET_ARG = 'join-secret';

/** Shortest join secret accepted: 128 bits of base64url. */
const MIN_SECRET_LENGTH = 22;

/** The one answer for an unknown id and, with a join secret, for a wrong or missing one. */
export function unknownConnection(): GuacProtocolError {
  // The id is not echoed: this message is logged, and a real id must never reach a log.
  return new GuacProtocolError(
    'No such connection: it may have ended. Join with the id from a current "ready" instruction (and the join secret, when the gateway asks for one), or use "select vnc" to start a new connection.',
    GuacStatus.RESOURCE_NOT_FOUND,
  );
}

export class JoinSecret {
  private readonly digest: Buffer;

  constructor(secret: string) {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new Error(
        `joinSecret must be at least ${String(MIN_SECRET_LENGTH)} characters; generate one with randomBytes(32).toString('base64url').`,
      );
    }
    this.digest = sha256(secret);
  }

  /** Constant time in the secret: both sides are hashed to equal lengths first. */
  matches(given: string | undefined): boolean {
    return timingSafeEqual(sha256(given ?? ''), this.digest);
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
