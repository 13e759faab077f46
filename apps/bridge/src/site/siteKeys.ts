// The keys a site's bridges share and nobody else has: derived (HKDF-SHA-256) from the site's
// secret in the database (migration 0007), one per purpose (its label is HKDF's info) so no key
// is used for two things, nor for two algorithms. The site's NATS credentials are not enough to
// make what these sign nor to read what they seal: a process that can publish or subscribe on
// the site's NATS but cannot read the database cannot say anything a bridge obeys, nor read what
// the bridges say (every bus message is encrypted and authenticated: siteSeal.ts), approve an
// AI's request, nor mint a sign-in device cookie.
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

export class SiteKeys {
  /** Derived once per purpose (every bus message is sealed and opened with one). */
  private readonly keys = new Map<SiteKeyPurpose, Buffer>();
  private busKey: KeyObject | undefined;

  private constructor(
    private readonly secret: Buffer,
    private readonly siteId: string,
  ) {}

  /** The site's keys from its database; a StartupError when the secret is missing. */
  static async load(settings: SettingsRepo, siteId: string): Promise<SiteKeys> {
    const secret = await settings.get('site_secret');
    if (typeof secret !== 'string' || !/^[0-9a-f]{64}$/.test(secret))
      throw new StartupError(
        'The database has no site secret (settings site_secret), which its migrations make: restore it from a backup, or let the bridge migrate a fresh database.',
      );
    return new SiteKeys(Buffer.from(secret, 'hex'), siteId);
  }

  /** The purpose's HMAC key (the sign-in device cookies are signed with one elsewhere). */
  key(purpose: SiteMacPurpose): Buffer {
    return this.derive(purpose);
  }

  /** The bus's AES-256-GCM key (siteSeal.ts), made once into a KeyObject for node:crypto. */
  busSealingKey(): KeyObject {
    this.busKey ??= createSecretKey(this.derive(BUS_SEALING));
    return this.busKey;
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
