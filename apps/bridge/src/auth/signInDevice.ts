// The sign-in device cookie: set on a successful password sign-in, it tells the sign-in throttle
// (signInThrottle.ts) "this browser has signed in to this account before", so a guesser hammering
// the account from the same address cannot keep the person out. Signed with HMAC-SHA-256 over the
// account and a random device id, so it cannot be made up or moved to another account; it grants
// nothing else (no session, no access). HttpOnly, SameSite=Strict, Secure with __Host- on https.
// In a site of several bridges the key is the site's (site/siteKeys.ts, from its database).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { CookieSettings } from './cookies.js';

const NAME = 'oc_signin_device';
const MAX_AGE_SECONDS = 180 * 24 * 3600;

export class SignInDevices {
  /**
   * The signing key. Random per process for a bridge alone: a restart forgets every device (they
   * are remembered again at the next sign-in). In a site it is the site's key (useKey), so every
   * bridge checks a cookie any of them issued, and a restart forgets none.
   */
  constructor(private key: Buffer = randomBytes(32)) {}

  /** Signs and checks with `key` from now on (cookies of the previous key are unknown again). */
  useKey(key: Buffer): void {
    if (key.length < 32) throw new Error('A sign-in device key has at least 32 bytes.');
    this.key = key;
  }

  /** A new cookie value for `account` (a normalized username). */
  issue(account: string): string {
    const id = randomBytes(16).toString('base64url');
    return `${id}.${this.mac(account, id)}`;
  }

  /** The device id when `value` was issued for `account` by this key, else undefined. */
  verify(value: string | undefined, account: string): string | undefined {
    if (value === undefined || value.length > 200) return undefined;
    const [id, mac, extra] = value.split('.');
    if (id === undefined || mac === undefined || extra !== undefined || id === '') return undefined;
    const expected = Buffer.from(this.mac(account, id));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
  }

  private mac(account: string, id: string): string {
    return createHmac('sha256', this.key).update(`${account}\0${id}`).digest('base64url');
  }
}

function cookieName(settings: CookieSettings): string {
  return settings.secure ? `__Host-${NAME}` : NAME;
}

export function readDeviceCookie(c: Context, settings: CookieSettings): string | undefined {
  return getCookie(c, cookieName(settings));
}

export function writeDeviceCookie(c: Context, settings: CookieSettings, value: string): void {
  setCookie(c, cookieName(settings), value, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: settings.secure,
    path: '/',
    maxAge: MAX_AGE_SECONDS,
  });
}
