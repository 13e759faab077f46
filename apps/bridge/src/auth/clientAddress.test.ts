// Which address a request counts as coming from: X-Forwarded-For is believed only from a proxy
// the operator named (an address or a CIDR range), and only when it holds an IP address.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { clientAddress, trustedProxyList } from './clientAddress.js';

async function seen(trusted: string[], remote: string, forwarded?: string): Promise<string> {
  const app = new Hono();
  app.get('/', (c) => c.text(clientAddress(c, trusted)));
  const headers: Record<string, string> =
    forwarded === undefined ? {} : { 'x-forwarded-for': forwarded };
  // The node adapter's env: getConnInfo reads the socket's remote address from it.
  const env = {
    incoming: { socket: { remoteAddress: remote, remotePort: 1, remoteFamily: 'IPv4' } },
  };
  const response = await app.request('/', { headers }, env);
  return response.text();
}

describe('clientAddress', () => {
  it('ignores X-Forwarded-For from anyone but a trusted proxy', async () => {
    expect(await seen([], '203.0.113.9', '198.51.100.1')).toBe('203.0.113.9');
    expect(await seen(['10.0.0.2'], '203.0.113.9', '198.51.100.1')).toBe('203.0.113.9');
  });

  it('takes the last hop a trusted proxy (address or range) appended', async () => {
    expect(await seen(['10.0.0.2'], '10.0.0.2', 'spoofed, 198.51.100.1')).toBe('198.51.100.1');
    expect(await seen(['10.89.10.0/24'], '::ffff:10.89.10.7', '198.51.100.1')).toBe('198.51.100.1');
    expect(await seen(['10.89.10.0/24'], '10.89.10.7', 'not-an-ip')).toBe('10.89.10.7');
  });

  it('refuses a list entry that is not an address or range', () => {
    expect(() => trustedProxyList(['caddy'])).toThrow(/not an IP address/);
  });
});
