// The bridge answers only to its own name: every HTTP request (viewer, /healthz, /mcp) and every
// WebSocket upgrade (/tunnel included) with a foreign Host or a foreign Origin gets 403 before
// any route runs — a page on another site must not read the desktop or drive it.
import { request } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, type RunningBridge } from '../bridge.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';

let bridge: RunningBridge;
let webRoot: string;
let fixture: TestAccess;

beforeAll(async () => {
  webRoot = await mkdtemp(join(tmpdir(), 'oc-guard-web-'));
  await writeFile(join(webRoot, 'signin.html'), '<!doctype html><title>sign in</title>');
  await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>viewer</title>');
  fixture = await startTestAccess();
  bridge = await startBridge(
    {
      port: 0,
      webRoot,
      // Nothing listens here: these tests never get as far as a desktop connection.
      guacd: { host: '127.0.0.1', port: 9 },
      connection: { protocol: 'vnc', params: { hostname: '127.0.0.1', port: '5900' } },
    },
    { access: fixture.access },
  );
});

afterAll(async () => {
  await bridge.close();
  await fixture.close();
  await rm(webRoot, { recursive: true, force: true });
});

/** A raw HTTP request with chosen headers (fetch would not let us set Host). */
function get(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, bridge.url), { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

const own = () => `127.0.0.1:${bridge.port}`;
const upgrade = {
  Connection: 'Upgrade',
  Upgrade: 'websocket',
  'Sec-WebSocket-Version': '13',
  'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
  'Sec-WebSocket-Protocol': 'guacamole',
};

describe('Host and Origin guard', () => {
  it('serves its own Host; /healthz says only "ok"', async () => {
    const health = await get('/healthz', { Host: own() });
    expect(health.status).toBe(200);
    expect(health.body).toBe('ok');
    expect((await get('/signin', { Host: `localhost:${bridge.port}` })).status).toBe(200);
  });

  it('refuses a foreign Host on every route with a message that says what to set', async () => {
    for (const path of ['/', '/healthz', '/index.html', '/signin', '/api/auth/state']) {
      const res = await get(path, { Host: `evil.example:${bridge.port}` });
      expect(res.status).toBe(403);
      expect(res.body).toContain('OC_PUBLIC_URL');
    }
    const mcp = await get('/mcp', { Host: 'evil.example' });
    expect(mcp.status).toBe(403);
    expect(JSON.parse(mcp.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('refuses a foreign Origin', async () => {
    const res = await get('/healthz', { Host: own(), Origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    expect(res.body).toContain('Forbidden Origin');
    expect((await get('/healthz', { Host: own(), Origin: `http://${own()}` })).status).toBe(200);
  });

  it('refuses a /tunnel upgrade from another site before it reaches the desktop', async () => {
    const foreign = await get('/tunnel', {
      ...upgrade,
      Host: own(),
      Origin: 'http://evil.example',
    });
    expect(foreign.status).toBe(403);
    const rebound = await get('/tunnel', { ...upgrade, Host: 'evil.example' });
    expect(rebound.status).toBe(403);
    // The same upgrade from the bridge's own page, with a ticket, is accepted (101).
    const ticket = await fixture.ticket('tunnel');
    const own101 = await get(`/tunnel?ticket=${ticket}`, {
      ...upgrade,
      Host: own(),
      Origin: `http://${own()}`,
    });
    expect(own101.status).toBe(101);
  });

  it('refuses an upgrade without Origin (no page of ours sends one without it)', async () => {
    const ticket = await fixture.ticket('tunnel');
    const res = await get(`/tunnel?ticket=${ticket}`, { ...upgrade, Host: own() });
    expect(res.status).toBe(403);
  });
});
