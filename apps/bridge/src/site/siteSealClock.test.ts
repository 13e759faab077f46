// The seal itself (siteSeal.ts), with the site's keys from a real store (SQLite in a temporary
// data dir) and a clock the test sets: a message opens once, and not after MESSAGE_MAX_AGE_MS;
// a key-value value opens as often as read, within its own bound; one from "the future" beyond
// SITE_CLOCK_SKEW_MS never. The envelope is encrypted (no plaintext in it, a fresh nonce each
// time) and any byte changed — version, key id, time, nonce, ciphertext or tag — or the message moved to
// another subject, cut short, or sealed with another site's key, never opens; an older bridge's
// envelope is named as such. The bus's key is none of the site's MAC keys.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { SiteKeys } from './siteKeys.js';
import {
  FROM_AN_OLDER_BRIDGE,
  MESSAGE_MAX_AGE_MS,
  SITE_CLOCK_SKEW_MS,
  SeenSeals,
  SiteSeal,
} from './siteSeal.js';

const Ping = z.strictObject({ type: z.literal('ping') });
const Said = z.strictObject({ type: z.literal('said'), text: z.string() });
const WHERE = 'oc.aabbccdd.bridge.bOne.ping';
const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
/** The envelope's parts (siteSeal.ts): version 1 byte, key id 2, time 8, nonce 12, ciphertext, tag 16. */
const NONCE_AT = 11;
const BODY_AT = 23;
const TAG_BYTES = 16;

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

  test('the envelope holds no plaintext, and a fresh nonce every time', () => {
    const seal = new SiteSeal(keys, clock);
    const text = 'a screenshot, typed text, an approval list';
    const one = Buffer.from(seal.seal(WHERE, { type: 'said', text }));
    const two = Buffer.from(seal.seal(WHERE, { type: 'said', text }));
    for (const sealed of [one, two]) {
      expect(sealed.includes(Buffer.from(text))).toBe(false);
      expect(sealed.includes(Buffer.from('said'))).toBe(false);
    }
    expect(one.subarray(NONCE_AT, BODY_AT).equals(two.subarray(NONCE_AT, BODY_AT))).toBe(false);
    // The same words sealed twice are two messages, not a replay.
    const seen = new SeenSeals();
    expect(seal.open(WHERE, Said, one, { seen })).toEqual({
      ok: true,
      message: { type: 'said', text },
    });
    expect(seal.open(WHERE, Said, two, { seen }).ok).toBe(true);
  });

  test('any byte changed (version, key id, time, nonce, ciphertext, tag) never opens', () => {
    const seal = new SiteSeal(keys, clock);
    const sealed = Buffer.from(seal.seal(WHERE, { type: 'ping' }));
    expect(sealed.byteLength).toBe(BODY_AT + '{"type":"ping"}'.length + TAG_BYTES);
    const errors = new Map<string, number>();
    for (let i = 0; i < sealed.byteLength; i += 1)
      for (const bit of [0x01, 0x80]) {
        const changed = Buffer.from(sealed);
        changed[i] = changed[i]! ^ bit;
        const opened = seal.open(WHERE, Ping, changed, { seen: new SeenSeals() });
        expect(opened.ok, `byte ${String(i)} ^ ${String(bit)}`).toBe(false);
        if (!opened.ok) errors.set(opened.error, (errors.get(opened.error) ?? 0) + 1);
      }
    // The key id changed (bytes 1–2) names a key this bridge was not given; all but those and the
    // version byte fail the tag: time (bytes 3–10), nonce (11–22), ciphertext, tag.
    expect(errors.get("not sealed with the site's key")).toBe(2 * (sealed.byteLength - 3));
    expect(
      [...errors.keys()].filter((error) =>
        /^sealed with bus key \d+, which this bridge was not given/.test(error),
      ),
    ).toHaveLength(4);
    // Re-dated: an old message given today's time does not open as new.
    const old = Buffer.from(seal.seal(WHERE, { type: 'ping' }));
    now += MESSAGE_MAX_AGE_MS + 1;
    expect(seal.open(WHERE, Ping, old, { seen: new SeenSeals() })).toEqual({
      ok: false,
      error: `older than ${String(MESSAGE_MAX_AGE_MS)} ms`,
    });
    old.writeBigUInt64BE(BigInt(now), 3);
    expect(seal.open(WHERE, Ping, old, { seen: new SeenSeals() })).toEqual({
      ok: false,
      error: "not sealed with the site's key",
    });
  });

  test("unsealed, cut short, moved, another site's or an older bridge's: never opened", async () => {
    const seal = new SiteSeal(keys, clock);
    const check = (): { seen: SeenSeals } => ({ seen: new SeenSeals() });
    const sealed = seal.seal(WHERE, { type: 'ping' });
    expect(seal.open(WHERE, Ping, encode({ type: 'ping' }), check())).toEqual({
      ok: false,
      error: 'not sealed',
    });
    expect(seal.open(WHERE, Ping, new Uint8Array(), check())).toEqual({
      ok: false,
      error: 'not sealed',
    });
    expect(seal.open(WHERE, Ping, sealed.subarray(0, BODY_AT + TAG_BYTES - 1), check())).toEqual({
      ok: false,
      error: 'not sealed',
    });
    expect(seal.open(WHERE, Ping, sealed.subarray(0, sealed.byteLength - 1), check())).toEqual({
      ok: false,
      error: "not sealed with the site's key",
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
    // The envelope of the bridges before this one, and of a later version: the log says why.
    const older = encode({ b: '{"type":"ping"}', t: now, n: 'nonce', m: 'A'.repeat(43) });
    expect(seal.open(WHERE, Ping, older, check())).toEqual({
      ok: false,
      error: FROM_AN_OLDER_BRIDGE,
    });
    expect(FROM_AN_OLDER_BRIDGE).toMatch(/all bridges of a site must be upgraded together/);
    // Version 1 had no key id.
    const before = Buffer.from(sealed);
    before[0] = 1;
    expect(seal.open(WHERE, Ping, before, check())).toMatchObject({
      ok: false,
      error: expect.stringMatching(/older bridge .*without a key id.*upgraded together/) as unknown,
    });
    const later = Buffer.from(sealed);
    later[0] = 3;
    expect(seal.open(WHERE, Ping, later, check())).toMatchObject({
      ok: false,
      error: expect.stringMatching(/newer bridge .*upgraded together/) as unknown,
    });
  });

  test("the bus's key is its own: none of the site's MAC keys", () => {
    const bus = keys.busSealingKey().key.export();
    for (const purpose of ['approval answers', 'sign-in devices'] as const)
      expect(bus.equals(keys.key(purpose))).toBe(false);
    expect(bus.byteLength).toBe(32);
  });
});
