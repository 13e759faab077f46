// Starting OpenID Connect sign-ins is limited per address: every flow holds a slot in a bounded
// table, so one source flooding /api/auth/oidc/start is refused (429, Retry-After) before it can
// push other people's sign-ins out. Real provider, real bridge.
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDC_START_LIMIT } from './oidc.js';
import { startOidcStack, type OidcStack } from './testing/oidcStack.js';

let stack: OidcStack;

beforeAll(async () => {
  stack = await startOidcStack({ accounts: [], startLimit: OIDC_START_LIMIT });
});

afterAll(async () => {
  await stack?.close();
});

describe('starting sign-ins', () => {
  it('refuses a flood from one address with 429 and says when to retry', async () => {
    const start = () =>
      fetch(new URL(`${API.oidcStart}?next=%2F`, stack.bridgeUrl), { redirect: 'manual' });
    for (let i = 0; i < OIDC_START_LIMIT.burst; i++) expect((await start()).status).toBe(302);
    const refused = await start();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toMatch(/Too many sign-ins were started from your address/);
  });
});
