// The keys a site's bridges share and nobody else has: derived (HKDF-SHA-256) from the site's
// secret in the database (migration 0007), one per purpose (its label is HKDF's info) so no key
// is used for two things, nor for two algorithms. The site's NATS credentials are not enough to
// make what these sign nor to read what they seal: a process that can publish or subscribe on
// the site's NATS but cannot read the database cannot say anything a bridge obeys, nor read what
// the bridges say (every bus message is encrypted and authenticated: siteSeal.ts), approve an
// AI's request, nor mint a sign-in device cookie.
// The bus's key rotates without downtime (siteConfig.ts reads the keys, the README's "Several
// bridges" says how): key 0 is derived from the database's secret, as above, and is the site's
// bus key while none is configured; an operator may give every bridge others, each with an id
// (1–65535, a plain number the operator picks: it names the key and says nothing about it), and
// say which one a bridge seals with and which others it still (or already) opens. An envelope
// carries the id of the key it was sealed with (siteSeal.ts); one under a key a bridge was not
// given is refused, so a retired key opens nothing once no bridge is given it any more.
// The MAC keys ('approval answers', 'sign-in devices') do not rotate with the bus key, on
// purpose: they stay derived from the database's secret, so a holder of a bus key (given to every
// bridge in its environment, the key rotation is for) who cannot read the database can still not
// approve an AI's request nor mint a device cookie. They are never sent; only their MACs are (an
// approval answer's inside a sealed envelope). Rotating them means a new site_secret.
import {
  createHmac,
  createSecretKey,
  hkdfSync,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import type { SettingsRepo } from '../store/types.js';
import { StartupError } from '../errors.js';

/** Keys for HMAC-SHA-256 (sign/verify). */
export type SiteMacPurpose = 'approval answers' | 'sign-in devices';
/**
 * The AES-256-GCM key of the bus (siteSeal.ts), never used for a MAC. A label of its own: the
 * HMAC key bus messages were signed with before they were encrypted ('bus messages') is retired.
 */
const BUS_SEALING = 'bus sealing (AES-256-GCM)';
type SiteKeyPurpose = SiteMacPurpose | typeof BUS_SEALING;

/** The id of the bus key derived from the database's site secret. */
export const DATABASE_BUS_KEY = 0;
/** The highest bus key id (two bytes in the envelope). */
export const MAX_BUS_KEY_ID = 0xffff;

/** A bus key an operator configured: its id (1–MAX_BUS_KEY_ID) and its 32 secret bytes. */
export interface BusKey {
  id: number;
  secret: Buffer;
}

/** The bus keys a bridge is given (siteConfig.ts reads them from its environment). */
export interface BusKeyConfig {
  /** The key it seals with; undefined: the database's (DATABASE_BUS_KEY). */
  current?: BusKey | undefined;
  /** The keys it opens besides: configured ones, or DATABASE_BUS_KEY for the database's. */
  accepted: readonly (BusKey | typeof DATABASE_BUS_KEY)[];
}

/** A bus key ready for AES-256-GCM, with its id. */
export interface BusSealingKey {
  id: number;
  key: KeyObject;
}

export class SiteKeys {
  /** Derived once per purpose (every bus message is sealed and opened with one). */
  private readonly keys = new Map<SiteKeyPurpose, Buffer>();
  /** The bus keys this bridge opens, by id, and the one it seals with. */
  private readonly busKeys = new Map<number, KeyObject>();
  private readonly sealing: BusSealingKey;

  private constructor(
    private readonly secret: Buffer,
    private readonly siteId: string,
    bus: BusKeyConfig,
  ) {
    const database = (): KeyObject => createSecretKey(this.derive(BUS_SEALING));
    // A configured key is the input of the same derivation as the database's (HKDF with the site
    // id): one key given to two sites still seals differently in each.
    const configured = (key: BusKey): KeyObject =>
      createSecretKey(Buffer.from(hkdfSync('sha256', key.secret, siteId, BUS_SEALING, 32)));
    this.sealing =
      bus.current === undefined
        ? { id: DATABASE_BUS_KEY, key: database() }
        : { id: bus.current.id, key: configured(bus.current) };
    this.busKeys.set(this.sealing.id, this.sealing.key);
    for (const key of bus.accepted)
      this.busKeys.set(
        key === DATABASE_BUS_KEY ? DATABASE_BUS_KEY : key.id,
        key === DATABASE_BUS_KEY ? database() : configured(key),
      );
  }

  /**
   * The site's keys from its database, with the bus keys configured (none: the database's bus
   * key only); a StartupError when the secret is missing.
   */
  static async load(
    settings: SettingsRepo,
    siteId: string,
    bus: BusKeyConfig = { accepted: [] },
  ): Promise<SiteKeys> {
    const secret = await settings.get('site_secret');
    if (typeof secret !== 'string' || !/^[0-9a-f]{64}$/.test(secret))
      throw new StartupError(
        'The database has no site secret (settings site_secret), which its migrations make: restore it from a backup, or let the bridge migrate a fresh database.',
      );
    return new SiteKeys(Buffer.from(secret, 'hex'), siteId, bus);
  }

  /** The purpose's HMAC key (the sign-in device cookies are signed with one elsewhere). */
  key(purpose: SiteMacPurpose): Buffer {
    return this.derive(purpose);
  }

  /** The bus key this bridge seals with (AES-256-GCM, siteSeal.ts), and its id. */
  busSealingKey(): BusSealingKey {
    return this.sealing;
  }

  /** The bus key with this id, if this bridge was given it (undefined: refuse the envelope). */
  busOpeningKey(id: number): KeyObject | undefined {
    return this.busKeys.get(id);
  }

  private derive(purpose: SiteKeyPurpose): Buffer {
    let key = this.keys.get(purpose);
    if (key === undefined) {
      key = Buffer.from(hkdfSync('sha256', this.secret, this.siteId, purpose, 32));
      this.keys.set(purpose, key);
    }
    return key;
  }

  /** An HMAC-SHA-256 (base64url) over `fields`, in order, with the purpose's key. */
  sign(purpose: SiteMacPurpose, fields: readonly unknown[]): string {
    return createHmac('sha256', this.key(purpose))
      .update(JSON.stringify(fields))
      .digest('base64url');
  }

  /** Whether `mac` is sign(purpose, fields), in constant time. */
  verify(purpose: SiteMacPurpose, fields: readonly unknown[], mac: string): boolean {
    const expected = Buffer.from(this.sign(purpose, fields));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
