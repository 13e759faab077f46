// API tokens for MCP clients: minting one (`oc_` + 32 random bytes, shown once, stored as its
// SHA-256 with a short hint), and turning an Authorization header into the principal a call
// acts for — the token's person, the token's name — or a refusal that says what to do.
// OC_MCP_TOKEN, for scripted setups, acts for the first admin. Lookups are cached for a moment
// (every MCP request authenticates), and while the store is unavailable a token looked up in the
// last few minutes keeps its principal (an outage is not the AI's fault); revoking a token, or
// disabling or removing a person, in this bridge drops the cache entry at once, so the next
// call is refused, outage or not. In a site of several bridges the other bridges are told
// (`onInvalidated`, site/joinSite.ts) and drop theirs as soon as they hear it.
import { TOKEN_PREFIX } from '@overlay-companion/protocol';
import { storeOutage } from '../store/errors.js';
import type { ApiTokenRecord, PersonRecord, Store } from '../store/types.js';
import { timingSafeEqual } from 'node:crypto';
import { bearerFrom, randomSecret, sha256Hex } from './secrets.js';

/** Shortest OC_MCP_TOKEN accepted: anything shorter is guessable. */
export const MIN_ENV_TOKEN_LENGTH = 16;
/**
 * How long a successful lookup is trusted without asking the store again. A revocation on another
 * bridge of the site reaches this cache over NATS at once; this bounds it if that message is lost.
 */
export const CACHE_MS = 2_000;
/**
 * How old a lookup may be and still stand in while the store is unavailable. A revocation cannot
 * be missed meanwhile: made here it drops the entry, and made by another bridge on the same
 * database it needs that database, which is the part not answering.
 */
const OUTAGE_CACHE_MS = 10 * 60_000;
/** The cache key of OC_MCP_TOKEN's principal (never a sha256 hex of a token). */
const ENV_KEY = 'env';
/** lastUsedAt is written at most this often per token. */
const TOUCH_EVERY_MS = 60_000;

export interface McpPrincipal {
  personId: string;
  personName: string;
  /** The token's id ('env' for OC_MCP_TOKEN); sessions are bound to it. */
  tokenId: string;
  tokenName: string;
  /** The desktops this token may use; null: every desktop its person may use. */
  desktopIds: readonly string[] | null;
}

export type TokenCheck = { ok: true; principal: McpPrincipal } | { ok: false; message: string };

export interface TokenMatch {
  tokenId?: string;
  personId?: string;
}

export function generateApiToken(): string {
  return `${TOKEN_PREFIX}${randomSecret(32)}`;
}

/** The part of a token shown in lists: enough to tell tokens apart, useless to an attacker. */
export function tokenHint(token: string): string {
  return `${token.slice(0, TOKEN_PREFIX.length + 4)}…`;
}

const WHERE =
  'Create a token on the bridge\'s /config page (signed in) and send it as "Authorization: Bearer <token>".';

interface CachedLookup {
  principal: McpPrincipal;
  checkedAt: number;
  /** The token's expiry, still enforced while the cached lookup stands in for the store. */
  expiresAt: number | null;
}

export class ApiTokenAuth {
  private readonly cache = new Map<string, CachedLookup>();
  private readonly touchedAt = new Map<string, number>();
  /** Bumped by every invalidate(), so a lookup that overlapped one does not cache its answer. */
  private generation = 0;
  private readonly invalidated = new Set<(match: TokenMatch) => Promise<void>>();
  private readonly changedListeners = new Set<() => void>();
  /** OC_MCP_TOKEN's SHA-256, compared in constant time with the presented token's. */
  private readonly envHash: Buffer | undefined;

  constructor(
    private readonly store: Store,
    envToken: string | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.envHash = envToken === undefined ? undefined : Buffer.from(sha256Hex(envToken), 'hex');
  }

  /** Changes with every invalidate() and forgetAll(): a person or token may have changed. */
  changes(): number {
    return this.generation;
  }

  async authenticate(authorization: string | undefined): Promise<TokenCheck> {
    const presented = bearerFrom(authorization);
    if (presented === undefined) return { ok: false, message: `Missing bearer token. ${WHERE}` };
    if (presented.length > 512) return { ok: false, message: `Wrong bearer token. ${WHERE}` };
    // One hash per request: it is both the store's key and what OC_MCP_TOKEN is compared with.
    const hash = sha256Hex(presented);
    if (this.envHash !== undefined && timingSafeEqual(Buffer.from(hash, 'hex'), this.envHash)) {
      return this.envPrincipal();
    }
    const cached = this.cache.get(hash);
    const now = this.now();
    // A token that expired since it was looked up is asked about again (and refused there).
    if (
      cached !== undefined &&
      now - cached.checkedAt < CACHE_MS &&
      (cached.expiresAt === null || cached.expiresAt > now)
    )
      return { ok: true, principal: cached.principal };
    try {
      return await this.lookUp(hash, now);
    } catch (err) {
      const standIn = this.duringOutage(err, hash, cached, now);
      if (standIn === undefined) throw err;
      return standIn;
    }
  }

  private async lookUp(hash: string, now: number): Promise<TokenCheck> {
    const generation = this.generation;
    const record = await this.store.tokens.byHash(hash);
    if (record === undefined) return this.refused(hash, `Wrong bearer token. ${WHERE}`);
    const refusal = refusalFor(record, now);
    if (refusal !== undefined) return this.refused(hash, refusal);
    const person = await this.store.people.byId(record.personId);
    if (person === undefined || person.disabled) {
      this.cache.delete(hash);
      return {
        ok: false,
        message: `This token's owner can no longer sign in (disabled or removed). ${WHERE}`,
      };
    }
    const principal: McpPrincipal = {
      personId: person.id,
      personName: person.displayName,
      tokenId: record.id,
      tokenName: record.name,
      desktopIds: record.desktopIds,
    };
    // Not when an invalidation ran while we read: what we read may be from before it.
    if (generation === this.generation) {
      this.cache.set(hash, { principal, checkedAt: now, expiresAt: record.expiresAt });
    }
    if (now - (this.touchedAt.get(record.id) ?? 0) >= TOUCH_EVERY_MS) {
      this.touchedAt.set(record.id, now);
      try {
        await this.store.tokens.touch(record.id, now);
      } catch (err) {
        // "Last used" is for lists; a store that can read but not write (a full disk) must not
        // refuse the call over it.
        if (storeOutage(err) === undefined) throw err;
      }
    }
    return { ok: true, principal };
  }

  /** The cached lookup, when the store is unavailable and the lookup recent enough to stand in. */
  private duringOutage(
    err: unknown,
    key: string,
    cached: CachedLookup | undefined,
    now: number,
  ): TokenCheck | undefined {
    if (storeOutage(err) === undefined || cached === undefined) return undefined;
    // Gone (or replaced) while we asked the store: invalidated, so not to be stood in for.
    if (this.cache.get(key) !== cached || now - cached.checkedAt >= OUTAGE_CACHE_MS) {
      return undefined;
    }
    if (cached.expiresAt !== null && cached.expiresAt <= now) {
      return {
        ok: false,
        message: `This token expired on ${new Date(cached.expiresAt).toISOString()}. ${WHERE}`,
      };
    }
    return { ok: true, principal: cached.principal };
  }

  private refused(hash: string, message: string): TokenCheck {
    this.cache.delete(hash);
    return { ok: false, message };
  }

  /**
   * Forget cached lookups of one token, or of everything a person holds, at once; settles once
   * the other bridges of the site were told (a revocation answers after that). `origin` 'site':
   * another bridge of the site said so (the listeners, who tell the site, are not called again).
   */
  invalidate(match: TokenMatch, origin: 'here' | 'site' = 'here'): Promise<void> {
    this.generation += 1;
    for (const listener of this.changedListeners) listener();
    const told = origin === 'here' ? [...this.invalidated].map((listener) => listener(match)) : [];
    for (const [hash, entry] of this.cache) {
      if (
        entry.principal.tokenId === match.tokenId ||
        entry.principal.personId === match.personId
      ) {
        this.cache.delete(hash);
      }
    }
    return Promise.all(told).then(() => undefined);
  }

  /** Forget every cached lookup (the site's bus was away: what it said meanwhile is unknown). */
  forgetAll(): void {
    this.generation += 1;
    for (const listener of this.changedListeners) listener();
    this.cache.clear();
  }

  /**
   * Told at every invalidate() (here or from the site) and forgetAll(): a person's role or account
   * may have changed (the fleet feed re-reads which desktops they may see).
   */
  onChanged(listener: () => void): () => void {
    this.changedListeners.add(listener);
    return () => this.changedListeners.delete(listener);
  }

  /** Told of every invalidation made in this bridge (the site tells the other bridges). */
  onInvalidated(listener: (match: TokenMatch) => Promise<void>): () => void {
    this.invalidated.add(listener);
    return () => this.invalidated.delete(listener);
  }

  private async envPrincipal(): Promise<TokenCheck> {
    const now = this.now();
    const cached = this.cache.get(ENV_KEY);
    if (cached !== undefined && now - cached.checkedAt < CACHE_MS) {
      return { ok: true, principal: cached.principal };
    }
    const generation = this.generation;
    let admin: PersonRecord | undefined;
    try {
      admin = await firstActiveAdmin(this.store);
    } catch (err) {
      const standIn = this.duringOutage(err, ENV_KEY, cached, now);
      if (standIn === undefined) throw err;
      return standIn;
    }
    if (admin === undefined) {
      return {
        ok: false,
        message:
          'OC_MCP_TOKEN acts for the admin, and this bridge has no admin yet. Finish setup (the link serve printed, or OC_ADMIN_USER/OC_ADMIN_PASSWORD), then retry.',
      };
    }
    const principal: McpPrincipal = {
      personId: admin.id,
      personName: admin.displayName,
      tokenId: 'env',
      tokenName: 'OC_MCP_TOKEN',
      desktopIds: null,
    };
    if (generation === this.generation) {
      this.cache.set(ENV_KEY, { principal, checkedAt: now, expiresAt: null });
    }
    return { ok: true, principal };
  }
}

function refusalFor(record: ApiTokenRecord, now: number): string | undefined {
  if (record.revokedAt !== null) return `This token was revoked. ${WHERE}`;
  if (record.expiresAt !== null && record.expiresAt <= now) {
    return `This token expired on ${new Date(record.expiresAt).toISOString()}. ${WHERE}`;
  }
  return undefined;
}

/** The admin OC_MCP_TOKEN and the headless viewer act for: the oldest admin not disabled. */
export async function firstActiveAdmin(store: Store): Promise<PersonRecord | undefined> {
  const people = await store.people.list();
  return people
    .filter((p) => p.role === 'admin' && !p.disabled)
    .sort((a, b) => a.createdAt - b.createdAt)[0];
}
