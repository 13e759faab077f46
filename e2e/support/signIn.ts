// Signing in, as the web app does, for the e2e tests: a real HTTP sign-in (POST /api/auth/signin
// with the bridge's Origin) as the stack's admin or another person, then the session cookie put
// into a browser context (context.addCookies) so its pages open the viewer signed in; and the same
// session for API calls the person would make on the settings page (e.g. turning a permission on).
import type { BrowserContext } from '@playwright/test';
import { signIn, type BrowserSession } from '../../apps/bridge/src/testing/browserSession.js';

export interface SignInTarget {
  url: string;
  admin: { username: string; password: string };
}

/** A fresh sign-in session of the stack's admin (HTTP). */
export function adminSession(stack: SignInTarget): Promise<BrowserSession> {
  return signIn(stack.url, stack.admin.username, stack.admin.password);
}

/** Signs `context` in as the stack's admin; returns the session for API calls. */
export function signInContext(
  context: BrowserContext,
  stack: SignInTarget,
): Promise<BrowserSession> {
  return signInContextAs(context, stack.url, stack.admin);
}

/** Signs `context` in as `person` (a new sign-in session of theirs); returns it for API calls. */
export async function signInContextAs(
  context: BrowserContext,
  url: string,
  person: { username: string; password: string },
): Promise<BrowserSession> {
  const session = await signIn(url, person.username, person.password);
  const at = session.cookie.indexOf('=');
  await context.addCookies([
    {
      name: session.cookie.slice(0, at),
      value: session.cookie.slice(at + 1),
      url,
      httpOnly: true,
      sameSite: 'Strict',
    },
  ]);
  return session;
}

/** Turns some of the admin's permission toggles on or off (PUT /api/me/permissions). */
export async function setPermissions(
  stack: SignInTarget,
  patch: Record<string, boolean>,
): Promise<void> {
  const session = await adminSession(stack);
  const answer = await session.request('/api/me/permissions', { method: 'PUT', body: patch });
  if (!answer.ok) {
    throw new Error(`PUT /api/me/permissions: ${answer.status} ${await answer.text()}`);
  }
}
