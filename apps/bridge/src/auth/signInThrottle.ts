// Brute-force protection for password sign-in, per address AND per account, that a guesser
// cannot use to lock a person out:
// - per address: after maxFailures failures the address is banned for banMs (Guacamole: 5 → 5
//   minutes). Every loopback address is one address (127.0.0.0/8 is all this machine, so spreading
//   guesses over 127.0.0.x gains nothing), and IPv6 counts by /64.
// - per account: after maxFailures failures each further attempt must wait a delay that doubles
//   from 1 s up to banMs. A delay, not a ban: it slows guessing whoever guesses, from anywhere.
// - a browser that signed in to the account before carries a signed device cookie
//   (signInDevice.ts). It is spared both limits — so a local process hammering the account from
//   the person's own address does not keep the person out — and has its own budget of
//   maxFailures, after which it counts as an unknown browser again.
// An attempt is reserved synchronously when it arrives, before the password is checked, and holds
// the door shut while it would be the one reaching a limit: a burst of parallel attempts cannot
// all be checked before the limit lands. Refused attempts are not counted (they cost nothing).
// In memory, behind the SignInThrottle interface. In a site of several bridges each failure that
// counts against an address or an account is told to the other bridges (`onFailure`, site/
// joinSite.ts), which count it too (`failedElsewhere`): a guesser spreading attempts over the
// bridges gains nothing but the few milliseconds the message takes.
import { isLoopbackHost } from './loopback.js';
import { SignInDevices } from './signInDevice.js';

export interface ThrottleLimits {
  /** Failures an address (and an account, and a device) may have before it is limited. */
  maxFailures: number;
  /** How long an address (or device) stays banned; also the longest per-account delay. */
  banMs: number;
}

export const DEFAULT_THROTTLE: ThrottleLimits = { maxFailures: 5, banMs: 5 * 60 * 1000 };

/** The first per-account delay; it doubles with each further failure, up to banMs. */
const FIRST_ACCOUNT_DELAY_MS = 1000;
/** An account's failures are forgotten after this long without one. */
const ACCOUNT_MEMORY_MS = 15 * 60 * 1000;
/** Entries remembered at most per kind; the least recently used are forgotten first. */
const MAX_ENTRIES = 50_000;

export interface SignInAttempt {
  /** The username as typed; counted without case or surrounding spaces. */
  account: string;
  /** The client's address (clientAddress.ts). */
  address: string;
  /** The device cookie the browser sent, if any (checked here against the account). */
  deviceCookie: string | undefined;
}

export type ThrottleCheck =
  { banned: false } | { banned: true; until: number; retryAfterMs: number };

/** Why an attempt was refused, for the message: the address is banned or the account slowed. */
export type ThrottleRefusal = {
  allowed: false;
  limit: 'address' | 'account';
  until: number;
  retryAfterMs: number;
};

/** An attempt that may check the password; say how it went, exactly once. */
export interface ReservedAttempt {
  /** The password was wrong; returns the address's ban when this failure started one. */
  failed(): ThrottleCheck;
  /** Signed in: frees what the attempt held; returns a device cookie value to set. */
  succeeded(): string;
  /**
   * The password was never judged (the store failed, the request broke): the attempt is taken
   * back as if it never came, so an outage cannot leave a limit held "in flight" for good.
   */
  abandoned(): void;
}

export type ThrottleDecision = { allowed: true; attempt: ReservedAttempt } | ThrottleRefusal;

/** The throttle the sign-in route uses; memory here, a shared store could implement it too. */
export interface SignInThrottle {
  readonly limits: ThrottleLimits;
  /** Books the attempt (synchronously: no other attempt is decided in between) or refuses it. */
  reserve(attempt: SignInAttempt): ThrottleDecision;
}

/** Failures counted towards a ban (an address, a device). */
interface BanState {
  failures: number;
  since: number;
  bannedUntil: number;
}

/** Failures of one account, and when its next attempt may start. */
interface AccountState {
  failures: number;
  lastFailure: number;
  nextAt: number;
}

const NOT_BANNED: ThrottleCheck = { banned: false };

/** While an attempt that would reach a limit is being checked, nobody else gets in. */
const IN_FLIGHT = Number.POSITIVE_INFINITY;

/** A failure that counted against an address (its key, addressKeyOf) and an account. */
export interface CountedFailure {
  account: string;
  addressKey: string;
  at: number;
}

export class MemorySignInThrottle implements SignInThrottle {
  private readonly addresses = new Map<string, BanState>();
  private readonly devices = new Map<string, BanState>();
  private readonly accounts = new Map<string, AccountState>();
  /** Its key is the site's in a site of several bridges (site/joinSite.ts). */
  readonly deviceCookies: SignInDevices;
  private readonly failureListeners = new Set<(failure: CountedFailure) => void>();

  constructor(
    readonly limits: ThrottleLimits = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
    deviceCookies = new SignInDevices(),
  ) {
    this.deviceCookies = deviceCookies;
  }

  reserve(attempt: SignInAttempt): ThrottleDecision {
    const now = this.now();
    const account = accountKey(attempt.account);
    const device = this.deviceCookies.verify(attempt.deviceCookie, account);
    if (device !== undefined) {
      const held = this.reserveBan(this.devices, `device:${device}`, now);
      // A device over its own budget is just an unknown browser again (so its failures answer
      // 401, not a ban: the address and the account limits are what stop it from here on).
      if (held !== undefined)
        return this.allowed(
          account,
          {
            failed: (at) => (held.failed(at), NOT_BANNED),
            undo: () => held.undo(),
          },
          undefined,
        );
    }
    const addressKey = addressKeyOf(attempt.address);
    const ban = this.banOf(this.addresses, addressKey, now);
    if (ban.banned) return { allowed: false, limit: 'address', ...ban };
    const wait = this.accountWait(account, now);
    if (wait.banned) return { allowed: false, limit: 'account', ...wait };
    const held = this.reserveBan(this.addresses, addressKey, now);
    if (held === undefined) throw new Error('unreachable: the address was checked just now');
    const counted: HeldBan = {
      failed: (at) => {
        for (const listener of this.failureListeners) listener({ account, addressKey, at });
        return held.failed(at);
      },
      undo: () => held.undo(),
    };
    return this.allowed(account, counted, this.reserveAccount(account, now));
  }

  /** Told of every failure here that counted against an address and an account. */
  onFailure(listener: (failure: CountedFailure) => void): () => void {
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  /**
   * A failure another bridge of the site counted: counted here too, banning the address and
   * delaying the account exactly when the bridge that saw it does.
   */
  failedElsewhere(failure: CountedFailure): void {
    const { at } = failure;
    const address = this.addresses.get(failure.addressKey);
    const a =
      address === undefined || at - address.since > this.limits.banMs
        ? { failures: 0, since: at, bannedUntil: 0 }
        : address;
    a.failures += 1;
    if (a.failures >= this.limits.maxFailures && a.bannedUntil !== IN_FLIGHT) {
      a.bannedUntil = Math.max(a.bannedUntil, at + this.limits.banMs);
      a.failures = 0;
      a.since = at;
    }
    touch(this.addresses, failure.addressKey, a);
    const account = this.accounts.get(failure.account);
    const s =
      account === undefined || at - account.lastFailure > ACCOUNT_MEMORY_MS
        ? { failures: 0, lastFailure: at, nextAt: 0 }
        : account;
    s.failures += 1;
    s.lastFailure = Math.max(s.lastFailure, at);
    if (s.failures >= this.limits.maxFailures && s.nextAt !== IN_FLIGHT)
      s.nextAt = Math.max(s.nextAt, at + this.accountDelay(s.failures));
    touch(this.accounts, failure.account, s);
  }

  /** The wait after an account's `failures`-th failure (from maxFailures on). */
  private accountDelay(failures: number): number {
    return Math.min(
      this.limits.banMs,
      FIRST_ACCOUNT_DELAY_MS * 2 ** Math.min(30, failures - this.limits.maxFailures),
    );
  }

  private allowed(
    account: string,
    held: HeldBan,
    accountHeld: HeldAccount | undefined,
  ): ThrottleDecision {
    let settled = false;
    const settle = (): void => {
      if (settled) throw new Error('a sign-in attempt was settled twice');
      settled = true;
    };
    return {
      allowed: true,
      attempt: {
        failed: () => {
          settle();
          const now = this.now();
          accountHeld?.failed(now);
          return held.failed(now);
        },
        succeeded: () => {
          settle();
          held.undo();
          // Only a sign-in through the limits clears the account's count: one through a known
          // device leaves a guesser's progress (and delay) as it was.
          if (accountHeld !== undefined) this.accounts.delete(account);
          return this.deviceCookies.issue(account);
        },
        abandoned: () => {
          settle();
          held.undo();
          accountHeld?.undo();
        },
      },
    };
  }

  private banOf(map: Map<string, BanState>, key: string, now: number): ThrottleCheck {
    const state = map.get(key);
    if (state === undefined || state.bannedUntil <= now) return { banned: false };
    if (state.bannedUntil === IN_FLIGHT)
      return { banned: true, until: now + 1000, retryAfterMs: 1000 };
    return { banned: true, until: state.bannedUntil, retryAfterMs: state.bannedUntil - now };
  }

  /** Counts one attempt against `key`; undefined when `key` is banned. */
  private reserveBan(map: Map<string, BanState>, key: string, now: number): HeldBan | undefined {
    if (this.banOf(map, key, now).banned) return undefined;
    let state = map.get(key);
    if (state === undefined || now - state.since > this.limits.banMs) {
      state = { failures: 0, since: now, bannedUntil: 0 };
    }
    const s = state;
    s.failures += 1;
    const reachesLimit = s.failures >= this.limits.maxFailures;
    if (reachesLimit) s.bannedUntil = IN_FLIGHT;
    touch(map, key, s);
    return {
      failed: (at) => {
        if (!reachesLimit) return { banned: false };
        s.bannedUntil = at + this.limits.banMs;
        s.failures = 0;
        s.since = at;
        return { banned: true, until: s.bannedUntil, retryAfterMs: this.limits.banMs };
      },
      undo: () => {
        s.failures = Math.max(0, s.failures - 1);
        // (A ban another bridge's failure started meanwhile stands.)
        if (reachesLimit && s.bannedUntil === IN_FLIGHT) s.bannedUntil = 0;
      },
    };
  }

  private accountWait(account: string, now: number): ThrottleCheck {
    const state = this.accounts.get(account);
    if (state === undefined || state.nextAt <= now) return { banned: false };
    if (state.nextAt === IN_FLIGHT) return { banned: true, until: now + 1000, retryAfterMs: 1000 };
    return { banned: true, until: state.nextAt, retryAfterMs: state.nextAt - now };
  }

  private reserveAccount(account: string, now: number): HeldAccount {
    let state = this.accounts.get(account);
    if (state === undefined || now - state.lastFailure > ACCOUNT_MEMORY_MS) {
      state = { failures: 0, lastFailure: now, nextAt: 0 };
    }
    const s = state;
    s.failures += 1;
    const delayed = s.failures >= this.limits.maxFailures;
    if (delayed) s.nextAt = IN_FLIGHT;
    touch(this.accounts, account, s);
    const delay = this.accountDelay(s.failures);
    return {
      failed: (at) => {
        s.lastFailure = at;
        if (delayed) s.nextAt = at + delay;
      },
      undo: () => {
        s.failures = Math.max(0, s.failures - 1);
        if (delayed && s.nextAt === IN_FLIGHT) s.nextAt = 0;
      },
    };
  }
}

interface HeldBan {
  failed: (at: number) => ThrottleCheck;
  undo: () => void;
}

interface HeldAccount {
  failed: (at: number) => void;
  undo: () => void;
}

/** Re-inserts so the Map's order is least recently used first, and keeps it bounded. */
function touch<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) break;
    map.delete(oldest);
  }
}

export function accountKey(username: string): string {
  return username.trim().toLowerCase();
}

/** One key per machine or network: all of loopback is one, IPv6 by its /64. */
export function addressKeyOf(address: string): string {
  const a = address
    .trim()
    .toLowerCase()
    .replace(/^::ffff:/, '');
  if (isLoopbackHost(a)) return 'loopback';
  if (a.includes(':')) return `${expandIpv6(a).slice(0, 4).join(':')}::/64`;
  return a;
}

function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const fill =
    tail === undefined ? [] : Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0');
  return [...left, ...fill, ...right].map((part) => part.replace(/^0+(?=.)/, ''));
}

/** "…Try again at 14:05:09 UTC (in 300 s)." — about the address or the account. */
export function banMessage(
  until: number,
  now = Date.now(),
  limit: 'address' | 'account' = 'address',
): string {
  const at = new Date(until).toISOString().slice(11, 19);
  const who = limit === 'address' ? 'from your address' : 'for this account';
  return `Too many failed sign-ins ${who}. Try again at ${at} UTC (in ${Math.ceil((until - now) / 1000)} s).`;
}
