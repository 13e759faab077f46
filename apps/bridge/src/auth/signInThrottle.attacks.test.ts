// Guessing passwords against a real bridge, over real HTTP, as a local process would: 40 wrong
// guesses sent at once are all refused and only as many as the limit are ever checked (the
// audit's sign_in_failed entries are the checks), the right password sent by the guesser
// afterwards is refused too, and meanwhile the person — from a browser that signed in before,
// on the same address — still signs in. Guesses spread over 15 loopback addresses (the client
// socket bound to 127.0.0.x) count as one address, and guesses for one account from 15 different
// addresses (a trusted proxy naming them) are slowed per account.
import { request } from 'node:http';
import { API } from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_THROTTLE } from './signInThrottle.js';
import {
  ADMIN_PASSWORD,
  ADMIN_USERNAME,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';

let bridge: TestBridge | undefined;

afterEach(async () => {
  await bridge?.close();
  bridge = undefined;
});

interface Answer {
  status: number;
  body: string;
  setCookies: string[];
}

/** POST /api/auth/signin from `localAddress`, with the browser's Origin and cookies. */
function signIn(
  url: string,
  password: string,
  options: { localAddress?: string; cookie?: string; forwardedFor?: string } = {},
): Promise<Answer> {
  const body = JSON.stringify({ username: ADMIN_USERNAME, password });
  return new Promise((resolve, reject) => {
    const req = request(new URL(API.signIn, url), {
      method: 'POST',
      agent: false,
      localAddress: options.localAddress ?? '127.0.0.1',
      headers: {
        Origin: new URL(url).origin,
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        ...(options.cookie === undefined ? {} : { Cookie: options.cookie }),
        ...(options.forwardedFor === undefined ? {} : { 'X-Forwarded-For': options.forwardedFor }),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const set = res.headers['set-cookie'] ?? [];
        resolve({ status: res.statusCode ?? 0, body: text, setCookies: set });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The password checks the bridge made: one sign_in_failed audit entry each. */
async function checkedFailures(b: TestBridge): Promise<number> {
  await b.access.audit.flush();
  return (await b.access.store.audit.query({ kind: 'sign_in_failed', limit: 10_000 })).length;
}

function count(answers: Answer[], status: number): number {
  return answers.filter((a) => a.status === status).length;
}

describe('sign-in throttle against a real bridge', () => {
  beforeEach(async () => {
    bridge = await startTestBridge();
  });

  it('refuses 40 parallel guesses, checking only the first 5, while the person still signs in', async () => {
    const b = bridge!;
    // The person signed in from this browser before: it keeps a device cookie.
    const earlier = await signIn(b.url, ADMIN_PASSWORD);
    expect(earlier.status).toBe(200);
    const device = earlier.setCookies.find((c) => c.startsWith('oc_signin_device='));
    expect(device).toBeDefined();
    const deviceCookie = device!.split(';')[0]!;
    const before = await checkedFailures(b);

    const guesses = Array.from({ length: 40 }, (_, i) => signIn(b.url, `wrong-${i}`));
    // The person signs in while the guesses are in flight, from the same address.
    const person = signIn(b.url, ADMIN_PASSWORD, { cookie: deviceCookie });
    const answers = await Promise.all(guesses);
    expect((await person).status).toBe(200);

    expect(count(answers, 200)).toBe(0);
    expect(count(answers, 401) + count(answers, 429)).toBe(40);
    // Checked: only the first maxFailures (the fifth answers with the ban it started).
    expect(await checkedFailures(b)).toBe(before + DEFAULT_THROTTLE.maxFailures);
    expect(count(answers, 401)).toBe(DEFAULT_THROTTLE.maxFailures - 1);

    // The guesser's right password at the end does not get in…
    const last = await signIn(b.url, ADMIN_PASSWORD);
    expect(last.status).toBe(429);
    expect(last.setCookies.some((c) => c.startsWith('oc_session='))).toBe(false);
    // …nor a forged device cookie; the person's browser still does, during a second wave.
    expect((await signIn(b.url, ADMIN_PASSWORD, { cookie: `${deviceCookie}x` })).status).toBe(429);
    const wave = Array.from({ length: 20 }, (_, i) => signIn(b.url, `again-${i}`));
    const again = await signIn(b.url, ADMIN_PASSWORD, { cookie: deviceCookie });
    expect(again.status).toBe(200);
    expect(again.setCookies.some((c) => c.startsWith('oc_session='))).toBe(true);
    expect(count(await Promise.all(wave), 429)).toBe(20);
    expect(await checkedFailures(b)).toBe(before + DEFAULT_THROTTLE.maxFailures);
  });

  it('counts 60 guesses over 15 loopback addresses as one address: 5 checked, the rest refused', async () => {
    const b = bridge!;
    const before = await checkedFailures(b);
    const answers: Answer[] = [];
    for (let round = 0; round < 4; round++) {
      for (let host = 2; host <= 16; host++) {
        answers.push(
          await signIn(b.url, `guess-${round}-${host}`, { localAddress: `127.0.0.${host}` }),
        );
      }
    }
    expect(answers).toHaveLength(60);
    expect(count(answers, 200)).toBe(0);
    expect(await checkedFailures(b)).toBe(before + DEFAULT_THROTTLE.maxFailures);
    expect(count(answers, 429)).toBe(60 - DEFAULT_THROTTLE.maxFailures + 1);
    expect(answers.at(-1)!.body).toMatch(/Too many failed sign-ins/);
  });
});

describe('sign-in throttle per account', () => {
  it('slows guesses for one account coming from 15 different addresses', async () => {
    // A reverse proxy on loopback names the clients, so each guess comes from its own address.
    // The bridge's clock stands still, so the first delay (1 s) cannot run out mid-test.
    const t0 = Date.now();
    bridge = await startTestBridge({ access: { trustedProxies: ['127.0.0.1'], now: () => t0 } });
    const b = bridge;
    const earlier = await signIn(b.url, ADMIN_PASSWORD, { forwardedFor: '198.51.100.1' });
    const deviceCookie = earlier.setCookies
      .find((c) => c.startsWith('oc_signin_device='))!
      .split(';')[0]!;
    const before = await checkedFailures(b);
    const answers: Answer[] = [];
    for (let round = 0; round < 4; round++) {
      for (let host = 1; host <= 15; host++) {
        answers.push(
          await signIn(b.url, `guess-${round}-${host}`, { forwardedFor: `203.0.113.${host}` }),
        );
      }
    }
    // No address reached 5 failures; the account did, after which each guess must wait.
    expect(await checkedFailures(b)).toBe(before + DEFAULT_THROTTLE.maxFailures);
    expect(count(answers, 401)).toBe(DEFAULT_THROTTLE.maxFailures);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(60 - DEFAULT_THROTTLE.maxFailures);
    for (const r of refused) expect(r.body).toMatch(/for this account/);
    // A delay, not a ban: the first is a second long (it doubles with each further failure).
    const retry = JSON.parse(refused.at(-1)!.body) as { retry_after_ms: number };
    expect(retry.retry_after_ms).toBe(1000);
    // A browser new to the account waits like everyone else; the person's own browser does not.
    const fresh = await signIn(b.url, ADMIN_PASSWORD, { forwardedFor: '198.51.100.1' });
    expect(fresh.status).toBe(429);
    const own = await signIn(b.url, ADMIN_PASSWORD, {
      forwardedFor: '198.51.100.1',
      cookie: deviceCookie,
    });
    expect(own.status).toBe(200);
  });
});
