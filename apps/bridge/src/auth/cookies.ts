// The sign-in cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page
// sends it), Path=/, living as long as the session's absolute expiry, and Secure — with the
// __Host- prefix that pins it to this origin — when people reach the bridge over https
// (OC_PUBLIC_URL). Reading, setting and clearing it go through here.
import { SESSION_COOKIE } from '@overlay-companion/protocol';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { parse } from 'hono/utils/cookie';

export interface CookieSettings {
  name: string;
  secure: boolean;
  maxAgeSeconds: number;
}

export function cookieSettings(publicUrl: string | undefined, maxAgeMs: number): CookieSettings {
  const secure = publicUrl !== undefined && publicUrl.toLowerCase().startsWith('https:');
  return {
    name: secure ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE,
    secure,
    maxAgeSeconds: Math.floor(maxAgeMs / 1000),
  };
}

/** The session cookie's value from a Cookie header. */
export function readSessionCookie(
  cookieHeader: string | undefined,
  settings: CookieSettings,
): string | undefined {
  if (cookieHeader === undefined) return undefined;
  return parse(cookieHeader, settings.name)[settings.name];
}

export function writeSessionCookie(c: Context, settings: CookieSettings, value: string): void {
  setCookie(c, settings.name, value, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: settings.secure,
    path: '/',
    maxAge: settings.maxAgeSeconds,
  });
}

export function clearSessionCookie(c: Context, settings: CookieSettings): void {
  deleteCookie(c, settings.name, { path: '/', secure: settings.secure });
}
