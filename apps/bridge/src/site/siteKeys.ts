// The keys a site's bridges share and nobody else has: derived (HKDF-SHA-256) from the site's
// secret in the database (migration 0007), one per purpose so no key is used for two things.
// The site's NATS credentials are not enough to make what these sign: a process that can publish
// on the site's NATS but cannot read the database cannot say anything a bridge obeys (every bus
// message is sealed: siteSeal.ts), approve an AI's request, nor mint a sign-in device cookie.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { SettingsRepo } from '../store/types.js';
import { StartupError } from '../errors.js';

export type SiteKeyPurpose = 'approval answers' | 'sign-in devices' | 'bus messages';

export class SiteKeys {
  /** Derived once per purpose (every bus message is sealed and opened with one). */
  private readonly keys = new Map<SiteKeyPurpose, Buffer>();

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

  key(purpose: SiteKeyPurpose): Buffer {
    let key = this.keys.get(purpose);
    if (key === undefined) {
      key = Buffer.from(hkdfSync('sha256', this.secret, this.siteId, purpose, 32));
      this.keys.set(purpose, key);
    }
    return key;
  }

  /** An HMAC-SHA-256 (base64url) over `fields`, in order, with the purpose's key. */
  sign(purpose: SiteKeyPurpose, fields: readonly unknown[]): string {
    return createHmac('sha256', this.key(purpose))
      .update(JSON.stringify(fields))
      .digest('base64url');
  }

  /** Whether `mac` is sign(purpose, fields), in constant time. */
  verify(purpose: SiteKeyPurpose, fields: readonly unknown[], mac: string): boolean {
    const expected = Buffer.from(this.sign(purpose, fields));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
