// DNS-rebinding guard: which Host and Origin values pass, on loopback, wildcard and behind a
// public URL; and the middleware's answers (tested with app.request, no server).
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { allowedHosts, checkHostAndOrigin, hostOriginGuard } from './hostGuard.js';

describe('allowedHosts', () => {
  it('adds the loopback names with the port when bound to loopback', () => {
    expect([...allowedHosts({ host: '127.0.0.1', port: 8080 })].sort()).toEqual(
      ['127.0.0.1:8080', '[::1]:8080', 'localhost:8080'].sort(),
    );
  });

  it('allows only the bound address (and OC_PUBLIC_URL) otherwise', () => {
    const hosts = allowedHosts({ host: '10.1.2.3', port: 8080 }, 'https://desk.example.org');
    expect([...hosts].sort()).toEqual(['10.1.2.3:8080', 'desk.example.org']);
    expect(hosts.has('localhost:8080')).toBe(false);
  });
});

describe('checkHostAndOrigin', () => {
  const options = {
    bound: () => ({ host: '127.0.0.1', port: 8080 }),
    publicUrl: 'https://desk.example.org',
  };

  it('accepts our hosts with or without an Origin of ours', () => {
    expect(checkHostAndOrigin(options, 'LOCALHOST:8080', undefined).ok).toBe(true);
    expect(checkHostAndOrigin(options, '127.0.0.1:8080', 'http://127.0.0.1:8080').ok).toBe(true);
    expect(checkHostAndOrigin(options, 'desk.example.org', 'https://desk.example.org').ok).toBe(
      true,
    );
  });

  it('refuses a rebinding name, a wrong port, a foreign or opaque Origin', () => {
    for (const [host, origin] of [
      ['evil.example:8080', undefined],
      ['127.0.0.1:9999', undefined],
      [undefined, undefined],
      ['127.0.0.1:8080', 'http://evil.example'],
      ['127.0.0.1:8080', 'null'],
      ['127.0.0.1:8080', 'file://'],
    ] as const) {
      const check = checkHostAndOrigin(options, host, origin);
      expect(check.ok, `${host} ${origin}`).toBe(false);
    }
  });

  it('answers 503 until the bridge knows its port', () => {
    expect(checkHostAndOrigin({ bound: () => undefined }, 'x', undefined)).toMatchObject({
      ok: false,
      status: 503,
    });
  });
});

describe('hostOriginGuard middleware', () => {
  const app = new Hono();
  app.use(
    '/mcp',
    hostOriginGuard({ bound: () => ({ host: '127.0.0.1', port: 8080 }), jsonRpc: true }),
  );
  app.post('/mcp', (c) => c.text('reached'));

  it('lets our Host through and answers a foreign one with a JSON-RPC 403', async () => {
    const ok = await app.request('/mcp', { method: 'POST', headers: { host: '127.0.0.1:8080' } });
    expect(await ok.text()).toBe('reached');
    const bad = await app.request('/mcp', {
      method: 'POST',
      headers: { host: 'rebind.example:8080' },
    });
    expect(bad.status).toBe(403);
    const body = (await bad.json()) as { jsonrpc: string; error: { message: string } };
    expect(body.jsonrpc).toBe('2.0');
    expect(body.error.message).toMatch(/OC_PUBLIC_URL/);
  });
});
