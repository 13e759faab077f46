// OC_NATS_URL read into servers and credentials: credentials never stay in the server list (it is
// logged), user:password and a token are told apart, OC_NATS_TOKEN stands beside a bare URL, and
// what is not a NATS address is refused naming the variable (without echoing a password).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { readSiteConfig } from './siteConfig.js';

describe('readSiteConfig', () => {
  it('without OC_NATS_URL the bridge is a site of its own', () => {
    expect(readSiteConfig({})).toBeUndefined();
    expect(readSiteConfig({ OC_NATS_URL: '  ' })).toBeUndefined();
  });

  it('takes user:password or a token out of the addresses', () => {
    expect(readSiteConfig({ OC_NATS_URL: 'nats://oc:s%40cret@n1:4222,nats://n2:4222' })).toEqual({
      servers: ['nats://n1:4222', 'nats://n2:4222'],
      user: 'oc',
      pass: 's@cret',
    });
    expect(readSiteConfig({ OC_NATS_URL: 'nats://tok123@10.0.0.5:4222' })).toEqual({
      servers: ['nats://10.0.0.5:4222'],
      token: 'tok123',
    });
    expect(readSiteConfig({ OC_NATS_URL: '127.0.0.1:4222', OC_NATS_TOKEN: 't0k' })).toEqual({
      servers: ['nats://127.0.0.1:4222'],
      token: 't0k',
    });
  });

  it('refuses what is not a NATS address, and two kinds of credentials at once', () => {
    expect(() => readSiteConfig({ OC_NATS_URL: 'http://u:pw@host:80' })).toThrow(ConfigError);
    expect(() => readSiteConfig({ OC_NATS_URL: ',' })).toThrow(/names no server/);
    expect(() =>
      readSiteConfig({ OC_NATS_URL: 'nats://u:pw@host:4222', OC_NATS_TOKEN: 'x' }),
    ).toThrow(/both given/);
    let message = '';
    try {
      readSiteConfig({ OC_NATS_URL: 'nats://u:hunter2@[bad' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/OC_NATS_URL/);
    expect(message).not.toContain('hunter2');
  });
});
