// The seal itself (siteSeal.ts), with the site's keys from a real store (SQLite in a temporary
// data dir) and a clock the test sets: a message opens once, and not after MESSAGE_MAX_AGE_MS;
// a key-value value opens as often as read, within its own bound; one from "the future" beyond
// SITE_CLOCK_SKEW_MS, one with its body or time changed, sealed for another subject, or with
// another site's key, never.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { SiteKeys } from './siteKeys.js';
import { MESSAGE_MAX_AGE_MS, SITE_CLOCK_SKEW_MS, SeenSeals, SiteSeal } from './siteSeal.js';

const Ping = z.strictObject({ type: z.literal('ping') });
const WHERE = 'oc.aabbccdd.bridge.bOne.ping';
const decode = (data: Uint8Array): Record<string, unknown> =>
  JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>;
const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('the seal on a site message', () => {
  let fixture: TestAccess;
  let keys: SiteKeys;
  let now = 1_800_000_000_000;
  const clock = (): number => now;

  beforeAll(async () => {
    fixture = await startTestAccess();
    keys = await SiteKeys.load(fixture.access.store.settings, 'aabbccdd');
  });
  afterAll(() => fixture.close());

  test('a message opens once, within its age, not from the future', () => {
    const seal = new SiteSeal(keys, clock);
    const seen = new SeenSeals();
    const sealed = seal.seal(WHERE, { type: 'ping' });
    expect(seal.open(WHERE, Ping, sealed, { seen })).toEqual({
      ok: true,
      message: { type: 'ping' },
    });
    expect(seal.open(WHERE, Ping, sealed, { seen })).toEqual({ ok: false, error: 'a replay' });
    // Another listener (its own memory) takes it once too.
    expect(seal.open(WHERE, Ping, sealed, { seen: new SeenSeals() }).ok).toBe(true);
    now += MESSAGE_MAX_AGE_MS + 1;
    expect(seal.open(WHERE, Ping, sealed, { seen: new SeenSeals() })).toMatchObject({ ok: false });
    const future = new SiteSeal(keys, () => now + SITE_CLOCK_SKEW_MS + 1).seal(WHERE, {
      type: 'ping',
    });
    expect(seal.open(WHERE, Ping, future, { seen })).toEqual({
      ok: false,
      error: 'from the future',
    });
  });

  test('a key-value value opens as often as read, within its bound', () => {
    const seal = new SiteSeal(keys, clock);
    const sealed = seal.seal(WHERE, { type: 'ping' });
    for (let i = 0; i < 3; i += 1)
      expect(seal.open(WHERE, Ping, sealed, { maxAgeMs: 3000 }).ok).toBe(true);
    now += 3001;
    expect(seal.open(WHERE, Ping, sealed, { maxAgeMs: 3000 })).toEqual({
      ok: false,
      error: 'older than 3000 ms',
    });
  });

  test("changed, unsealed, moved or another site's: never opened", async () => {
    const seal = new SiteSeal(keys, clock);
    const envelope = decode(seal.seal(WHERE, { type: 'ping' }));
    const check = (): { seen: SeenSeals } => ({ seen: new SeenSeals() });
    expect(seal.open(WHERE, Ping, encode({ ...envelope, t: now - 1 }), check()).ok).toBe(false);
    expect(seal.open(WHERE, Ping, encode({ ...envelope, b: '{"type":"ping" }' }), check()).ok).toBe(
      false,
    );
    expect(seal.open(WHERE, Ping, encode({ type: 'ping' }), check())).toEqual({
      ok: false,
      error: 'not sealed',
    });
    // Sealed for another subject (a message moved): never opened.
    const elsewhere = seal.seal('oc.aabbccdd.bridge.bTwo.ping', { type: 'ping' });
    expect(seal.open(WHERE, Ping, elsewhere, check())).toEqual({
      ok: false,
      error: "not sealed with the site's key",
    });
    const otherSite = await SiteKeys.load(fixture.access.store.settings, 'eeff0011');
    expect(
      seal.open(WHERE, Ping, new SiteSeal(otherSite, clock).seal(WHERE, { type: 'ping' }), check()),
    ).toEqual({ ok: false, error: "not sealed with the site's key" });
  });
});
