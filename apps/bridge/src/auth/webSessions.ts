// Sign-in sessions: minting one at sign-in (a random cookie value; the database keeps only its
// hash and a CSRF token), resolving the cookie on each request with idle and absolute expiry,
// ending one (sign-out) or all of a person's (password change, disabled, removed), and the
// headless viewer's session, which lives only in memory and is handed to the Chromium the bridge
// launched — it is never issued over HTTP. Whoever ends sessions is told (`onEnded`) so the
// sockets opened under them close too.
import type { PersonRecord, Store, WebSessionRecord } from '../store/types.js';
import { randomSecret, sha256Hex } from './secrets.js';

export interface SessionLimits {
  /** A session unused (no request, no open socket) for this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, whatever happens. */
  absoluteMs: number;
}

/** Guacamole's default: 60 minutes without activity. An open viewer counts as activity. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  idleMs: 60 * 60 * 1000,
  absoluteMs: 24 * 60 * 60 * 1000,
};

/** lastSeenAt is written at most this often per session (not on every request). */
const TOUCH_EVERY_MS = 30_000;

export type SessionMethod = 'password' | 'oidc' | 'headless';

export interface ActiveSession {
  idHash: string;
  personId: string;
  csrfToken: string;
  method: SessionMethod;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  headless: boolean;
}

export interface SignedIn {
  person: PersonRecord;
  session: ActiveSession;
}

/**
 * `origin` 'site': the sessions ended on another bridge of the site (site/joinSite.ts). A listener
 * may return a promise: ending a session here settles once it settled (the site's "applied").
 */
export type SessionsEndedListener = (
  idHashes: readonly string[],
  reason: string,
  origin: 'here' | 'site',
) => void | Promise<void>;

export class WebSessions {
  private readonly headless = new Map<string, ActiveSession>();
  private readonly listeners = new Set<SessionsEndedListener>();

  constructor(
    private readonly store: Store,
    readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  onEnded(listener: SessionsEndedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Signs `person` in; returns the cookie value (shown to nobody but the browser). */
  async create(
    person: PersonRecord,
    method: 'password' | 'oidc',
    source: string | null,
  ): Promise<{ cookieValue: string; session: ActiveSession }> {
    const cookieValue = randomSecret();
    const now = this.now();
    const record: WebSessionRecord = {
      idHash: sha256Hex(cookieValue),
      personId: person.id,
      csrfToken: randomSecret(),
      method,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + this.limits.absoluteMs,
      source,
    };
    await this.store.sessions.create(record);
    return { cookieValue, session: { ...record, headless: false } };
  }

  /**
   * A session for the headless viewer of `personId`, in memory only (it ends with the bridge).
   * The caller hands the cookie value to the Chromium it launched, in-process.
   */
  createHeadless(personId: string): { cookieValue: string; session: ActiveSession } {
    const cookieValue = randomSecret();
    const now = this.now();
    const session: ActiveSession = {
      idHash: sha256Hex(cookieValue),
      personId,
      csrfToken: randomSecret(),
      method: 'headless',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: Number.MAX_SAFE_INTEGER,
      headless: true,
    };
    this.headless.set(session.idHash, session);
    return { cookieValue, session };
  }

  /** The signed-in person behind a cookie value, or undefined (unknown, expired, disabled). */
  async resolve(cookieValue: string | undefined): Promise<SignedIn | undefined> {
    if (cookieValue === undefined || cookieValue === '' || cookieValue.length > 200)
      return undefined;
    const idHash = sha256Hex(cookieValue);
    const session = this.headless.get(idHash) ?? (await this.fromStore(idHash));
    if (session === undefined) return undefined;
    const person = await this.store.people.byId(session.personId);
    if (person === undefined || person.disabled) {
      await this.end(idHash, 'the person was disabled or removed');
      return undefined;
    }
    await this.touch(session);
    return { person, session };
  }

  /** Keeps a session alive while one of its sockets is open (called periodically). */
  async keepAlive(idHash: string): Promise<void> {
    const session = this.headless.get(idHash) ?? (await this.fromStore(idHash));
    if (session !== undefined) await this.touch(session);
  }

  /** Sign-out: ends one session and tells the listeners (its sockets close). */
  async end(idHash: string, reason: string): Promise<void> {
    const wasHeadless = this.headless.delete(idHash);
    const removed = await this.store.sessions.remove(idHash);
    if (wasHeadless || removed) await this.emit([idHash], reason);
  }

  /** Ends every session of a person, except `exceptIdHash` (the one changing its password). */
  async endForPerson(personId: string, reason: string, exceptIdHash?: string): Promise<void> {
    const ended = await this.store.sessions.removeForPerson(personId, exceptIdHash);
    for (const [idHash, session] of this.headless) {
      if (session.personId === personId && idHash !== exceptIdHash) {
        this.headless.delete(idHash);
        ended.push(idHash);
      }
    }
    if (ended.length > 0) await this.emit(ended, reason);
  }

  /** Deletes expired sessions (run periodically) and tells the listeners. */
  async sweep(): Promise<void> {
    const now = this.now();
    const ended = await this.store.sessions.removeExpired(now, now - this.limits.idleMs);
    if (ended.length > 0) await this.emit(ended, 'the sign-in session expired');
  }

  private async fromStore(idHash: string): Promise<ActiveSession | undefined> {
    const record = await this.store.sessions.byIdHash(idHash);
    if (record === undefined) return undefined;
    const now = this.now();
    if (record.expiresAt <= now || now - record.lastSeenAt > this.limits.idleMs) {
      await this.end(idHash, 'the sign-in session expired');
      return undefined;
    }
    return { ...record, headless: false };
  }

  private async touch(session: ActiveSession): Promise<void> {
    const now = this.now();
    if (now - session.lastSeenAt < TOUCH_EVERY_MS) return;
    session.lastSeenAt = now;
    if (!session.headless) await this.store.sessions.touch(session.idHash, now);
  }

  /** Whether a session still exists (in memory for the headless viewer's, else in the store). */
  async exists(idHash: string): Promise<boolean> {
    return this.headless.has(idHash) || (await this.store.sessions.byIdHash(idHash)) !== undefined;
  }

  /**
   * Sessions another bridge of the site ended (their rows are gone already): the listeners close
   * what this bridge has open under them.
   */
  endedElsewhere(idHashes: readonly string[], reason: string): void {
    void this.emit(idHashes, reason, 'site');
  }

  private async emit(
    idHashes: readonly string[],
    reason: string,
    origin: 'here' | 'site' = 'here',
  ): Promise<void> {
    const settling: Promise<void>[] = [];
    for (const listener of this.listeners) {
      const result = listener(idHashes, reason, origin);
      if (result instanceof Promise) settling.push(result);
    }
    await Promise.all(settling);
  }
}
