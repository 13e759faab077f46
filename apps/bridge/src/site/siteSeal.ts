// The seal on everything a site's bridges say to each other over NATS: broadcasts, requests,
// replies and key-value values. A sealed payload is AES-256-GCM (an AEAD) with the site's bus key
// (siteKeys.ts), which only a bridge that reads the site's database (or is given the configured
// bus keys) has, in a binary envelope:
//
//   version (1 byte) | key id (uint16 big-endian) | sender's clock (ms, uint64 big-endian)
//   | nonce (12 random bytes) | ciphertext of the message's JSON | tag (16 bytes)
//
// The key id names the bus key it was sealed with (siteKeys.ts: 0 is the database's; the others
// are numbers an operator picked, so the id says nothing about the key): a bridge opens with the
// key of that id if it was given it, and refuses the envelope otherwise — how a rotated-out key
// stops working. The additional authenticated data is the version, key id and time and `where`
// (the subject, reply inbox or key-value key it was sent to, not in the envelope): a message
// moved to another subject or key (say, a call meant for one bridge sent to another), or its
// time or key id changed, never opens. So
// NATS credentials alone neither make anything a bridge obeys nor read what the bridges say
// (screenshots, overlays, approval lists, ticket hashes); NATS still sees the subjects, sizes and
// timing. Opening checks the tag (GCM, in constant time) before anything of the message is read,
// then its age (bridges' clocks are assumed within SITE_CLOCK_SKEW_MS of each other), then, for
// messages (not key-value values, which are re-read many times), that the same nonce and tag were
// not seen before (a replay); only then its JSON and schema.
//
// Nonces are 96 random bits per message, never a counter: every bridge seals with the same key,
// and a counter would need coordinating. Two equal nonces under one key would break GCM, but
// after n messages the chance of any pair is about n²/2⁹⁷: 2⁻³³ after 2³² messages (NIST SP
// 800-38D's bound for random nonces), which is 50 days of 1,000 messages a second site-wide.
// The random bytes are drawn from the system's generator a few kilobytes at a time (one call into
// OpenSSL per 341 nonces instead of one per message, on the way of every forwarded call); each
// byte is used once, so every nonce is still 96 random bits.
import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import { z } from 'zod';
import type { BusSealingKey, SiteKeys } from './siteKeys.js';

/** A broadcast, request or reply older than this (by its sender's clock) is dropped. */
export const MESSAGE_MAX_AGE_MS = 30_000;
/** How far apart the site's bridges' clocks may be (a message from "the future" within it is fine). */
export const SITE_CLOCK_SKEW_MS = 5_000;
/** The most seals remembered for replay checks; the oldest are forgotten first. */
const MAX_REMEMBERED = 100_000;

/** Larger than any NATS server's max_payload is set to (it refuses more before this is asked). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/**
 * The envelope's first byte. Version 1 had no key id; the one before it (a MAC over readable
 * JSON) began with `{`.
 */
const VERSION = 2;
const OLD_ENVELOPE_FIRST_BYTE = 0x7b;
const KEY_ID_AT = 1;
const TIME_AT = 3;
const NONCE_AT = 11;
const NONCE_BYTES = 12;
const BODY_AT = NONCE_AT + NONCE_BYTES;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';
/** Nonces drawn from the system's generator at once (see the header). */
const NONCES_PER_DRAW = 341;

/** Said in the log of a bridge that gets a message from a bridge of the version before. */
export const FROM_AN_OLDER_BRIDGE =
  'sealed by an older bridge (its bus messages are signed, not encrypted): all bridges of a site must be upgraded together; the older bridges cannot read this one either';

const decoder = new TextDecoder('utf-8', { fatal: true });
/** The envelope of the version before, recognized only to say so in the log. */
const OldEnvelope = z.object({ b: z.string(), t: z.number(), n: z.string(), m: z.string() });

export type Opened<S extends z.ZodType> =
  { ok: true; message: z.output<S> } | { ok: false; error: string };

/**
 * The seals seen within MESSAGE_MAX_AGE_MS (by nonce and tag), so a message is acted on once.
 * Only seals that opened are kept, so its size is bounded by the site's own traffic (and by
 * MAX_REMEMBERED).
 */
export class SeenSeals {
  private readonly seen = new Map<string, number>();

  /** Whether `seal` was seen before; remembers it until `until`. */
  check(seal: string, now: number, until: number): boolean {
    for (const [old, expiry] of this.seen) {
      if (expiry > now && this.seen.size < MAX_REMEMBERED) break;
      this.seen.delete(old);
    }
    if (this.seen.has(seal)) return true;
    this.seen.set(seal, until);
    return false;
  }
}

/** Random nonces, drawn NONCES_PER_DRAW at a time; each is handed out once. */
class NoncePool {
  private readonly pool = Buffer.allocUnsafe(NONCES_PER_DRAW * NONCE_BYTES);
  private at = this.pool.byteLength;

  /** Writes the next unused random nonce into `into`. */
  fill(into: Buffer): void {
    if (this.at === this.pool.byteLength) {
      randomFillSync(this.pool);
      this.at = 0;
    }
    this.pool.copy(into, 0, this.at, this.at + NONCE_BYTES);
    this.at += NONCE_BYTES;
  }
}

export class SiteSeal {
  private readonly sealing: BusSealingKey;
  private readonly nonces = new NoncePool();

  constructor(
    private readonly keys: SiteKeys,
    private readonly now: () => number = Date.now,
  ) {
    this.sealing = keys.busSealingKey();
  }

  /** The sealed payload of `message` (its JSON, with this bridge's time), for `where` only. */
  seal(where: string, message: unknown): Uint8Array {
    const plain = Buffer.from(JSON.stringify(message), 'utf8');
    const sealed = Buffer.allocUnsafe(BODY_AT + plain.byteLength + TAG_BYTES);
    sealed[0] = VERSION;
    sealed.writeUInt16BE(this.sealing.id, KEY_ID_AT);
    sealed.writeBigUInt64BE(BigInt(this.now()), TIME_AT);
    const nonce = sealed.subarray(NONCE_AT, BODY_AT);
    this.nonces.fill(nonce);
    const cipher = createCipheriv(ALGORITHM, this.sealing.key, nonce, {
      authTagLength: TAG_BYTES,
    });
    cipher.setAAD(additionalData(sealed, where));
    const body = cipher.update(plain);
    body.copy(sealed, BODY_AT);
    cipher.final().copy(sealed, BODY_AT + body.byteLength);
    cipher.getAuthTag().copy(sealed, sealed.byteLength - TAG_BYTES);
    return sealed;
  }

  /**
   * The message in a sealed payload that arrived at `where`, parsed with `schema`; the error says why (for the log, never
   * the content). `seen` given: a message (age MESSAGE_MAX_AGE_MS, once only); otherwise a
   * key-value value, at most `maxAgeMs` old.
   */
  open<S extends z.ZodType>(
    where: string,
    schema: S,
    data: Uint8Array,
    check: { seen: SeenSeals } | { maxAgeMs: number },
  ): Opened<S> {
    if (data.byteLength > MAX_MESSAGE_BYTES) return { ok: false, error: 'too large' };
    const sealed = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (sealed[0] !== VERSION) return { ok: false, error: notThisVersion(sealed) };
    if (sealed.byteLength < BODY_AT + TAG_BYTES) return { ok: false, error: 'not sealed' };
    const keyId = sealed.readUInt16BE(KEY_ID_AT);
    const key = this.keys.busOpeningKey(keyId);
    if (key === undefined) return { ok: false, error: notGiven(keyId) };
    const tagAt = sealed.byteLength - TAG_BYTES;
    let plain: Buffer;
    try {
      const decipher = createDecipheriv(ALGORITHM, key, sealed.subarray(NONCE_AT, BODY_AT), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(additionalData(sealed, where));
      decipher.setAuthTag(sealed.subarray(tagAt));
      plain = decipher.update(sealed.subarray(BODY_AT, tagAt));
      // Throws when the tag is not right: nothing decrypted is read before this.
      decipher.final();
    } catch {
      return { ok: false, error: "not sealed with the site's key" };
    }
    const t = Number(sealed.readBigUInt64BE(TIME_AT));
    const now = this.now();
    const maxAgeMs = 'seen' in check ? MESSAGE_MAX_AGE_MS : check.maxAgeMs;
    if (now - t > maxAgeMs) return { ok: false, error: `older than ${maxAgeMs} ms` };
    if (t - now > SITE_CLOCK_SKEW_MS) return { ok: false, error: 'from the future' };
    if ('seen' in check) {
      // The nonce and tag name the seal: a message sent again is the same bytes.
      const seal = sealed.toString('base64', NONCE_AT, BODY_AT) + sealed.toString('base64', tagAt);
      if (check.seen.check(seal, now, t + MESSAGE_MAX_AGE_MS + 1))
        return { ok: false, error: 'a replay' };
    }
    let json: unknown;
    try {
      json = JSON.parse(decoder.decode(plain));
    } catch {
      return { ok: false, error: 'not JSON' };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) return { ok: false, error: z.prettifyError(parsed.error).slice(0, 500) };
    return { ok: true, message: parsed.data };
  }
}

/** Why an envelope under a key this bridge was not given is refused (the id is not secret). */
function notGiven(keyId: number): string {
  return `sealed with bus key ${String(keyId)}, which this bridge was not given: a key retired here, or one not yet given to every bridge (OC_SITE_BUS_KEY, OC_SITE_BUS_KEYS_ACCEPTED)`;
}

/** The header (version, key id and time) and where the message was sent: what the tag covers besides it. */
function additionalData(sealed: Buffer, where: string): Buffer {
  const aad = Buffer.allocUnsafe(NONCE_AT + Buffer.byteLength(where, 'utf8'));
  sealed.copy(aad, 0, 0, NONCE_AT);
  aad.write(where, NONCE_AT, 'utf8');
  return aad;
}

/** Why a payload that is not this version's envelope does not open. */
function notThisVersion(data: Buffer): string {
  const version = data[0] ?? 0;
  if (version === 1)
    return 'sealed by an older bridge (envelope version 1, without a key id): all bridges of a site must be upgraded together';
  // A later version keeps the version byte first (and below the JSON's `{`).
  if (version > VERSION && version < OLD_ENVELOPE_FIRST_BYTE && data.byteLength >= BODY_AT)
    return `sealed by a newer bridge (envelope version ${String(version)}): all bridges of a site must be upgraded together`;
  if (version === OLD_ENVELOPE_FIRST_BYTE) {
    try {
      if (OldEnvelope.safeParse(JSON.parse(decoder.decode(data))).success)
        return FROM_AN_OLDER_BRIDGE;
    } catch {
      // Not JSON either: just not sealed.
    }
  }
  return 'not sealed';
}
