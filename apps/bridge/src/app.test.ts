// Routes of the HTTP app, driven with app.request() (no server): health, the viewer and its SPA
// fallback, the missing-build page, reserved paths and the mount seam.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type HealthReport } from './app.js';

const health = (): HealthReport => ({
  status: 'ok',
  version: '0.1.0',
  uptimeSeconds: 3,
  tunnels: 2,
  upstream: { protocol: 'vnc', guacd: '127.0.0.1:4822' },
});

let built: string;
let empty: string;

beforeAll(async () => {
  built = await mkdtemp(join(tmpdir(), 'oc-web-'));
  await mkdir(join(built, 'assets'));
  await writeFile(
    join(built, 'index.html'),
    '<!doctype html><title>viewer</title><div id="root"></div>',
  );
  await writeFile(join(built, 'assets', 'app.js'), 'console.log("viewer")');
  empty = await mkdtemp(join(tmpdir(), 'oc-web-missing-'));
});

afterAll(async () => {
  await rm(built, { recursive: true, force: true });
  await rm(empty, { recursive: true, force: true });
});

describe('createApp', () => {
  it('answers /healthz with the health snapshot as JSON', async () => {
    const app = createApp({ webRoot: built, health });
    const res = await app.request('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toEqual(health());
  });

  it('serves the built viewer and its assets', async () => {
    const app = createApp({ webRoot: built, health });
    const index = await app.request('/');
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<div id="root">');
    const asset = await app.request('/assets/app.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(await asset.text()).toBe('console.log("viewer")');
  });

  it('falls back to index.html for client-side routes', async () => {
    const app = createApp({ webRoot: built, health });
    const res = await app.request('/monitor/2');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<title>viewer</title>');
  });

  it('never answers reserved paths with the viewer', async () => {
    const app = createApp({ webRoot: built, health });
    for (const path of ['/api/nothing', '/mcp', '/ws/viewer']) {
      const res = await app.request(path);
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toEqual({ error: `No route ${path}.` });
    }
  });

  it('explains that the viewer must be built when it is missing', async () => {
    const app = createApp({ webRoot: empty, health });
    const res = await app.request('/');
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).toContain('npm run build');
    expect(text).toContain(empty);
  });

  it('tells a plain HTTP client that /tunnel is a WebSocket endpoint', async () => {
    const app = createApp({ webRoot: built, health });
    const res = await app.request('/tunnel?width=800');
    expect(res.status).toBe(426);
    expect(((await res.json()) as { error: string }).error).toMatch(/subprotocol "guacamole"/);
  });

  it('mounts feature routes before the viewer so the SPA fallback cannot shadow them', async () => {
    const app = createApp({
      webRoot: built,
      health,
      mounts: [(a) => a.get('/api/hello', (c) => c.json({ hello: 'world' }))],
    });
    const res = await app.request('/api/hello');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ hello: 'world' });
  });
});
