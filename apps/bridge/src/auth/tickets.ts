// Single-use tickets for the WebSockets. A signed-in page asks for one over HTTP (cookie + CSRF
// checked) and presents it in the socket URL; the ticket is bound to the person, their sign-in
// session and one socket kind, dies on first use (right or wrong kind) or after TICKET_TTL_MS,
// and is stored only as its hash. Issuance is limited per person — a token bucket and a cap on
// unused tickets — so one person (or a script with their cookie) cannot exhaust it for others.
// The headless viewer's tickets come from its in-memory session (webSessions.ts), never from a
// request that claims to be headless. In a site of several bridges the page may ask one bridge
// and connect to another: each ticket issued is told to the other bridges (its hash and claims,
// never the ticket), and each one used too (`onIssued`, `onUsed`, site/joinSite.ts); the answer
// to the page waits until the site has it (`told`). A ticket presented to two bridges within the
// moment the news of its use takes could open two sockets: the price of any bridge taking any
// socket, for a secret that lives 30 s and is handed to one page.
import { TICKET_TTL_MS, type TicketSocket } from '@overlay-companion/protocol';
import { KeyedBuckets, type BucketLimit } from '../limits/rateLimit.js';
import { randomSecret, sha256Hex } from './secrets.js';

export interface TicketClaims {
  personId: string;
  sessionIdHash: string;
  socket: TicketSocket;
  /** The session is the headless viewer's (no person at that browser). */
  headless: boolean;
  /** The desktop the socket is for (checked when issued); absent: the person's default. */
  desktopId?: string | undefined;
}

/** A page reconnecting with backoff needs two tickets per attempt (control + tunnel). */
export const TICKET_ISSUE_LIMIT: BucketLimit = { ratePerSecond: 2, burst: 40 };
/** Unused tickets one person may hold at once. */
export const MAX_OUTSTANDING_PER_PERSON = 64;

export interface TicketEntry extends TicketClaims {
  expiresAt: number;
}
type Entry = TicketEntry;

export type IssueResult =
  | { ok: true; ticket: string; expiresAt: number }
  | { ok: false; retryAfterMs: number; message: string };

export class Tickets {
  /** By ticket hash. */
  private readonly entries = new Map<string, Entry>();
  private readonly buckets: KeyedBuckets;
  private readonly issuedListeners = new Set<(hash: string, entry: Entry) => Promise<void>>();
  private readonly usedListeners = new Set<(hash: string) => void>();
  private telling: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ttlMs = TICKET_TTL_MS,
    private readonly now: () => number = Date.now,
    limit: BucketLimit = TICKET_ISSUE_LIMIT,
  ) {
    this.buckets = new KeyedBuckets(limit);
  }

  issue(claims: TicketClaims): IssueResult {
    this.sweep();
    let outstanding = 0;
    for (const entry of this.entries.values())
      if (entry.personId === claims.personId) outstanding += 1;
    if (outstanding >= MAX_OUTSTANDING_PER_PERSON) {
      return {
        ok: false,
        retryAfterMs: this.ttlMs,
        message: `You hold ${outstanding} unused socket tickets; wait ${Math.ceil(this.ttlMs / 1000)} s for them to expire, or close some viewer windows.`,
      };
    }
    const wait = this.buckets.take(claims.personId);
    if (wait > 0) {
      return {
        ok: false,
        retryAfterMs: wait,
        message: `Too many socket tickets asked for; retry in ${wait} ms.`,
      };
    }
    const ticket = randomSecret(24);
    const expiresAt = this.now() + this.ttlMs;
    const hash = sha256Hex(ticket);
    const entry = { ...claims, expiresAt };
    this.entries.set(hash, entry);
    const told = [...this.issuedListeners].map((listener) => listener(hash, entry));
    if (told.length > 0) this.telling = Promise.all([this.telling, ...told]);
    return { ok: true, ticket, expiresAt };
  }

  /**
   * Redeems a ticket once, for `socket`. Unknown, used, expired and wrong-kind tickets all give
   * undefined; a wrong-kind ticket is burned all the same.
   */
  consume(ticket: string | undefined, socket: TicketSocket): TicketClaims | undefined {
    if (ticket === undefined || ticket === '' || ticket.length > 512) return undefined;
    const key = sha256Hex(ticket);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    for (const listener of this.usedListeners) listener(key);
    if (entry.expiresAt <= this.now() || entry.socket !== socket) return undefined;
    const { expiresAt: _expiresAt, ...claims } = entry;
    return claims;
  }

  /** Settles once the other bridges of the site were told of the tickets issued so far. */
  told(): Promise<void> {
    return this.telling.then(() => undefined);
  }

  /** Told of each ticket issued here (by hash): the site tells the other bridges. */
  onIssued(listener: (hash: string, entry: TicketEntry) => Promise<void>): () => void {
    this.issuedListeners.add(listener);
    return () => this.issuedListeners.delete(listener);
  }

  /** Told of each ticket used here (by hash): the site tells the other bridges. */
  onUsed(listener: (hash: string) => void): () => void {
    this.usedListeners.add(listener);
    return () => this.usedListeners.delete(listener);
  }

  /** A ticket another bridge of the site issued: it may be presented here. */
  issuedElsewhere(hash: string, entry: TicketEntry): void {
    if (entry.expiresAt <= this.now()) return;
    this.entries.set(hash, entry);
  }

  /** A ticket another bridge of the site took: it works nowhere else. */
  usedElsewhere(hash: string): void {
    this.entries.delete(hash);
  }

  /** Drops every unused ticket of these sessions (sign-out). */
  revokeSessions(idHashes: readonly string[]): void {
    const ended = new Set(idHashes);
    for (const [key, entry] of this.entries)
      if (ended.has(entry.sessionIdHash)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
