// Brute force against sign-in, over real HTTP: after DEFAULT_THROTTLE.maxFailures (5, as
// Guacamole) failed attempts from one address, that address is banned — even the right password
// is refused, with 429, Retry-After, retry_after_ms and the time the ban ends in words — and the
// ban ends after banMs (5 minutes; the bridge's clock is moved instead of waiting). A forged
// X-Forwarded-For does not make a banned address someone else.
import { API, type ApiError } from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_THROTTLE } from '../auth/signInThrottle.js';
import {
  ADMIN_PASSWORD,
  ADMIN_USERNAME,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { browserHeaders, rawRequest, type RawResponse } from './testing/http.js';

/** Added to the bridge's clock (the throttle's, the sessions'), so bans end without waiting. */
let clockSkewMs = 0;
let bridge: TestBridge;

// A bridge per test: every request comes from 127.0.0.1, so one test's ban would be the next's.
beforeEach(async () => {
  clockSkewMs = 0;
  bridge = await startTestBridge({ access: { now: () => Date.now() + clockSkewMs } });
});

afterEach(async () => {
  await bridge.close();
});

function signIn(
  password: string,
  extra: Record<string, string> = {},
  username = ADMIN_USERNAME,
): Promise<RawResponse> {
  return rawRequest(bridge.url, API.signIn, {
    method: 'POST',
    headers: browserHeaders(bridge.url, undefined, extra),
    body: JSON.stringify({ username, password }),
  });
}

/** Fails sign-in until the source is banned. */
async function getBanned(): Promise<void> {
  for (let attempt = 1; attempt < DEFAULT_THROTTLE.maxFailures; attempt += 1) {
    expect((await signIn(`wrong-${attempt}`)).status, `attempt ${attempt}`).toBe(401);
  }
  expectBanned(await signIn(`wrong-${DEFAULT_THROTTLE.maxFailures}`));
}

function expectBanned(answer: RawResponse): ApiError {
  expect(answer.status).toBe(429);
  expect(answer.headers['set-cookie']).toBeUndefined();
  const error = JSON.parse(answer.body) as ApiError;
  expect(error.error).toMatch(
    /Too many failed sign-ins.*Try again at \d\d:\d\d:\d\d UTC \(in \d+ s\)/,
  );
  expect(error.retry_after_ms).toBeGreaterThan(0);
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  return error;
}

describe('sign-in brute force', () => {
  it('bans the source after 5 failed sign-ins, even for the right password, and says until when', async () => {
    expect(DEFAULT_THROTTLE).toEqual({ maxFailures: 5, banMs: 5 * 60 * 1000 });
    for (let attempt = 1; attempt < DEFAULT_THROTTLE.maxFailures; attempt += 1) {
      // Unknown usernames count the same as wrong passwords.
      const answer = await signIn(
        `wrong-${attempt}`,
        {},
        attempt % 2 === 0 ? 'nobody' : ADMIN_USERNAME,
      );
      expect(answer.status, `attempt ${attempt}`).toBe(401);
    }
    const fifth = await signIn('wrong-5');
    const started = expectBanned(fifth);
    expect(started.retry_after_ms).toBe(DEFAULT_THROTTLE.banMs);

    const right = await signIn(ADMIN_PASSWORD);
    const error = expectBanned(right);
    expect(error.retry_after_ms).toBeLessThanOrEqual(DEFAULT_THROTTLE.banMs);
    // The time in words is when the ban ends (to the second, as the message says it).
    const said = /at (\d\d):(\d\d):(\d\d) UTC/.exec(error.error);
    const until = new Date(Date.now() + clockSkewMs + (error.retry_after_ms ?? 0));
    const saidSeconds = Number(said?.[1]) * 3600 + Number(said?.[2]) * 60 + Number(said?.[3]);
    const untilSeconds =
      until.getUTCHours() * 3600 + until.getUTCMinutes() * 60 + until.getUTCSeconds();
    expect(Math.abs(saidSeconds - untilSeconds) % 86_400).toBeLessThanOrEqual(2);
  });

  it('does not let a banned source dodge the ban with a forged X-Forwarded-For', async () => {
    await getBanned();
    for (const forwarded of ['203.0.113.7', '127.0.0.2', '::1']) {
      expectBanned(await signIn(ADMIN_PASSWORD, { 'X-Forwarded-For': forwarded }));
    }
  });

  it('ends the ban after banMs: the right password works again, a wrong one starts counting afresh', async () => {
    await getBanned();
    clockSkewMs += DEFAULT_THROTTLE.banMs - 1000;
    expectBanned(await signIn(ADMIN_PASSWORD));
    clockSkewMs += 1000;
    const right = await signIn(ADMIN_PASSWORD);
    expect(right.status).toBe(200);
    expect(right.headers['set-cookie']).toBeDefined();
    // A success clears the count: one more failure is one failure, not a ban.
    expect((await signIn('wrong-again')).status).toBe(401);
  });
});
