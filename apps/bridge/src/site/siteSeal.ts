// The seal on everything a site's bridges say to each other over NATS: broadcasts, requests,
// replies and key-value values. A sealed payload is an envelope { b: the message's JSON, t: the
// sender's clock (ms), n: a random nonce, m: HMAC-SHA-256 over [where, b, t, n] } with the site's
// key for bus messages (siteKeys.ts), which only a bridge that reads the site's database has. So
// NATS credentials alone make nothing a bridge obeys. `where` (the subject, reply inbox or
// key-value key it was sent to) is not in the envelope but bound by the MAC: a sealed message
// moved to another subject or key (say, a call meant for one bridge sent to another) never opens.
// The seal is integrity only: whoever can subscribe on the site's NATS reads what is said. Opening checks the MAC in constant time before
// anything of the message is parsed, then its age (bridges' clocks are assumed within
// SITE_CLOCK_SKEW_MS of each other), then, for messages (not key-value values, which are re-read
// many times), that the same seal was not seen before (a replay); only then its schema.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { SiteKeys } from './siteKeys.js';

/** A broadcast, request or reply older than this (by its sender's clock) is dropped. */
export const MESSAGE_MAX_AGE_MS = 30_000;
/** How far apart the site's bridges' clocks may be (a message from "the future" within it is fine). */
export const SITE_CLOCK_SKEW_MS = 5_000;
/** The most seals remembered for replay checks; the oldest are forgotten first. */
const MAX_REMEMBERED = 100_000;

/** Larger than any NATS server's max_payload is set to (it refuses more before this is asked). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

const Envelope = z.strictObject({
  b: z.string(),
  t: z.number().int().nonnegative(),
  n: z.string().max(64),
  m: z.string().max(128),
});

export type Opened<S extends z.ZodType> =
  { ok: true; message: z.output<S> } | { ok: false; error: string };

/**
 * The seals seen within MESSAGE_MAX_AGE_MS (by MAC), so a message is acted on once. Only
 * seals whose MAC verified are kept, so its size is bounded by the site's own traffic (and by
 * MAX_REMEMBERED).
 */
export class SeenSeals {
  private readonly seen = new Map<string, number>();

  /** Whether `mac` was seen before; remembers it until `until`. */
  check(mac: string, now: number, until: number): boolean {
    for (const [old, expiry] of this.seen) {
      if (expiry > now && this.seen.size < MAX_REMEMBERED) break;
      this.seen.delete(old);
    }
    if (this.seen.has(mac)) return true;
    this.seen.set(mac, until);
    return false;
  }
}

export class SiteSeal {
  constructor(
    private readonly keys: SiteKeys,
    private readonly now: () => number = Date.now,
  ) {}

  /** The sealed payload of `message` (its JSON, with this bridge's time), for `where` only. */
  seal(where: string, message: unknown): Uint8Array {
    const b = JSON.stringify(message);
    const t = this.now();
    const n = randomBytes(12).toString('base64url');
    const m = this.keys.sign('bus messages', [where, b, t, n]);
    return encoder.encode(JSON.stringify({ b, t, n, m }));
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
    const envelope = Envelope.safeParse(parseJson(data));
    if (!envelope.success) return { ok: false, error: 'not sealed' };
    const { b, t, n, m } = envelope.data;
    if (!this.keys.verify('bus messages', [where, b, t, n], m))
      return { ok: false, error: "not sealed with the site's key" };
    const now = this.now();
    const maxAgeMs = 'seen' in check ? MESSAGE_MAX_AGE_MS : check.maxAgeMs;
    if (now - t > maxAgeMs) return { ok: false, error: `older than ${maxAgeMs} ms` };
    if (t - now > SITE_CLOCK_SKEW_MS) return { ok: false, error: 'from the future' };
    if ('seen' in check && check.seen.check(m, now, t + MESSAGE_MAX_AGE_MS + 1))
      return { ok: false, error: 'a replay' };
    let json: unknown;
    try {
      json = JSON.parse(b);
    } catch {
      return { ok: false, error: 'not JSON' };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) return { ok: false, error: z.prettifyError(parsed.error).slice(0, 500) };
    return { ok: true, message: parsed.data };
  }
}

function parseJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return undefined;
  }
}
