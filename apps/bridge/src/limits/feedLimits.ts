// How much of the bridge the /ws/overlays feed may hold, in one place: how many feeds a token (or
// a sign-in) and a person may keep open, the largest sync_state one subscriber is sent, the most
// bytes queued for a subscriber that does not read, and the close codes and words a refused
// subscriber gets. FeedSeats counts the open feeds against the caps.
//
// Why these bounds: any token holder can fill a store (10,000 overlays, labels of control
// characters that JSON escapes six-fold) and open feeds that never read; without them every such
// socket held its own copy of a 13 MiB sync, and 200 of them took the bridge past 5 GiB. With
// them a person can pin at most FEED_SOCKETS_PER_PERSON × FEED_MAX_BUFFERED_BYTES.

/** A subscriber only asks for a sync now and then: a burst of 10, one per second after. */
export const FEED_REQUEST_LIMIT = { ratePerSecond: 1, burst: 10 };

/**
 * Open feeds per API token, and per sign-in session (ticket feeds). A stream overlay and a second
 * app need one each; four leaves room for a restart racing the old connection's close.
 */
export const FEED_SOCKETS_PER_CREDENTIAL = 4;

/** Open feeds per person, across all their tokens and signed-in pages. */
export const FEED_SOCKETS_PER_PERSON = 8;

/**
 * Largest sync_state a subscriber is sent, in bytes of the encoded text (after JSON escaping, as
 * UTF-8). A full store of printable text stays under it: 10,000 overlays with 200-character CJK
 * labels and 128-character ids make 9.4 MiB. A store padded with characters JSON escapes
 * (control characters, lone surrogates: six bytes each) can reach 15 MiB, and is refused.
 */
export const FEED_MAX_SYNC_BYTES = 10 * 1024 * 1024;

/**
 * Most bytes the bridge queues for one subscriber (beyond what the kernel buffers), counting the
 * message about to go: room for a whole sync and the next one. A subscriber past it is not
 * reading, and is cut off — it can reconnect and get the whole store again — instead of the
 * bridge's memory growing with every change.
 */
export const FEED_MAX_BUFFERED_BYTES = 2 * FEED_MAX_SYNC_BYTES;

/** Close codes of the feed (4000–4999 are the application's own). */
export const FEED_CLOSE = {
  /** Signed out, disabled or the token revoked (SocketRegistry). */
  revoked: 4401,
  /** The store's sync_state is over FEED_MAX_SYNC_BYTES (like HTTP 413). */
  syncTooLarge: 4413,
  /** Over FEED_SOCKETS_PER_CREDENTIAL or FEED_SOCKETS_PER_PERSON (like HTTP 429). */
  tooManyFeeds: 4429,
} as const;

/** A WebSocket close reason is at most 123 bytes. */
export const MAX_CLOSE_REASON_BYTES = 123;

const MIB = 1024 * 1024;
const mib = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MiB`;

/** The close reason when a sync of `bytes` is over FEED_MAX_SYNC_BYTES. */
export function syncTooLargeReason(bytes: number): string {
  return `The overlays make a ${mib(bytes)} sync_state, over the feed's ${FEED_MAX_SYNC_BYTES / MIB} MiB: remove overlays, then reconnect.`;
}

/** Who holds a feed: the person, and the token or sign-in session it was opened with. */
export interface FeedHolder {
  personId: string;
  /** tokenSocketKey(tokenId) or the sign-in session's hash. */
  credentialKey: string;
  credential: 'token' | 'sign-in';
}

/** Open feeds per token/sign-in and per person; take() is synchronous, so no race between upgrades. */
export class FeedSeats {
  private readonly byCredential = new Map<string, number>();
  private readonly byPerson = new Map<string, number>();

  /**
   * Takes a seat for `holder`: the release function, or the close reason when a cap is reached
   * (close with FEED_CLOSE.tooManyFeeds).
   */
  take(holder: FeedHolder): { release: () => void } | { refused: string } {
    const ofCredential = this.byCredential.get(holder.credentialKey) ?? 0;
    const ofPerson = this.byPerson.get(holder.personId) ?? 0;
    if (ofCredential >= FEED_SOCKETS_PER_CREDENTIAL) {
      const which = holder.credential === 'token' ? 'This token' : 'This sign-in';
      return {
        refused: `${which} already has ${ofCredential} overlay feeds open (${FEED_SOCKETS_PER_CREDENTIAL} allowed): close one, then reconnect.`,
      };
    }
    if (ofPerson >= FEED_SOCKETS_PER_PERSON) {
      return {
        refused: `You already have ${ofPerson} overlay feeds open (${FEED_SOCKETS_PER_PERSON} allowed, all tokens and pages): close one, then reconnect.`,
      };
    }
    bump(this.byCredential, holder.credentialKey, 1);
    bump(this.byPerson, holder.personId, 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        bump(this.byCredential, holder.credentialKey, -1);
        bump(this.byPerson, holder.personId, -1);
      },
    };
  }

  /** Open feeds of a person (for tests and logs). */
  ofPerson(personId: string): number {
    return this.byPerson.get(personId) ?? 0;
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  // Deleted at zero, so people and tokens that come and go leave nothing behind.
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
