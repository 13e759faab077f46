// Test support for sealed site messages (siteSeal.ts): what one says, read by a test's raw NATS
// client with the site's keys from a bridge's database (the test plays a bridge of the site, or
// inspects what one sent), and an envelope as someone without the keys can make it.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Access } from '../../auth/access.js';
import { SiteKeys } from '../siteKeys.js';
import { MESSAGE_MAX_AGE_MS, SiteSeal } from '../siteSeal.js';

const seals = new WeakMap<Access, Promise<SiteSeal>>();

/** The site's seal, with the keys in `bridge`'s database. */
export function siteSealOf(bridge: { access: Access }): Promise<SiteSeal> {
  let seal = seals.get(bridge.access);
  if (seal === undefined) {
    const settings = bridge.access.store.settings;
    seal = settings.get('site_id').then(async (siteId) => {
      if (typeof siteId !== 'string') throw new Error('the bridge has no site id');
      return new SiteSeal(await SiteKeys.load(settings, siteId));
    });
    seals.set(bridge.access, seal);
  }
  return seal;
}

/** The message sealed in `data` for `where` (a test's read; no replay memory). Throws if none. */
export async function sealedBody(
  bridge: { access: Access },
  where: string,
  data: Uint8Array,
): Promise<unknown> {
  const opened = (await siteSealOf(bridge)).open(where, z.unknown(), data, {
    maxAgeMs: MESSAGE_MAX_AGE_MS,
  });
  if (!opened.ok) throw new Error(`a sealed message that does not open: ${opened.error}`);
  return opened.message;
}

/**
 * `message` in this version's envelope, as anyone with the NATS credentials can write it:
 * version, key id 0 (the database's), the time now, a random nonce, the message's JSON where
 * the ciphertext goes and a made-up tag (the key is in the site's database only).
 */
export function badlySealed(message: unknown): Uint8Array {
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(Date.now()));
  return Buffer.concat([
    Buffer.from([2, 0, 0]),
    time,
    randomBytes(12),
    Buffer.from(JSON.stringify(message)),
    randomBytes(16),
  ]);
}
