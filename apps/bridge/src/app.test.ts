// Routes of the HTTP app, driven with app.request() (no server) against a real Access (SQLite):
// /healthz says only "ok"; pages and files are behind sign-in except the sign-in/setup page and
// exactly the files it loads (from Vite's manifest); source maps are never served; security
// headers on every answer; the missing-build page; reserved paths; the mount seam.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { startTestAccess, type TestAccess } from './testing/testAccess.js';

let built: string;
let empty: string;
let fixture: TestAccess;
let cookie: string;

const MANIFEST = {
  'signin.html': { file: 'assets/signin-1.js', css: ['assets/signin-1.css'], imports: ['_shared'] },
  _shared: { file: 'assets/shared-2.js' },
  'index.html': { file: 'assets/viewer-3.js', imports: ['_shared'] },
  'console.html': { file: 'assets/console-4.js', imports: ['_shared'] },
};

beforeAll(async () => {
  built = await mkdtemp(join(tmpdir(), 'oc-web-'));
  await mkdir(join(built, 'assets'));
  await mkdir(join(built, '.vite'));
  await writeFile(join(built, '.vite', 'manifest.json'), JSON.stringify(MANIFEST));
  await writeFile(
    join(built, 'index.html'),
    '<!doctype html><title>viewer</title><div id="root"></div>',
  );
  await writeFile(join(built, 'console.html'), '<!doctype html><title>console</title>');
  await writeFile(join(built, 'signin.html'), '<!doctype html><title>sign in</title>');
  for (const file of [
    'signin-1.js',
    'signin-1.css',
    'shared-2.js',
    'viewer-3.js',
    'console-4.js',
  ]) {
    await writeFile(join(built, 'assets', file), `/* ${file} */`);
  }
  await writeFile(join(built, 'assets', 'viewer-3.js.map'), '{"sources":["secret.ts"]}');
  empty = await mkdtemp(join(tmpdir(), 'oc-web-missing-'));
  fixture = await startTestAccess();
  const { cookieValue } = await fixture.access.sessions.create(fixture.admin, 'password', 'test');
  cookie = `${fixture.access.cookie.name}=${cookieValue}`;
});

afterAll(async () => {
  await rm(built, { recursive: true, force: true });
  await rm(empty, { recursive: true, force: true });
  await fixture.close();
});

const app = (webRoot = built) => createApp({ webRoot, access: fixture.access });
const signedIn = { headers: { cookie: '' } };

describe('createApp', () => {
  beforeAll(() => {
    signedIn.headers.cookie = cookie;
  });

  it('answers /healthz with only "ok" — no version, hosts, ports or displays', async () => {
    const res = await app().request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok');
  });

  it('sends people who are not signed in to /signin, remembering where they were going', async () => {
    const root = await app().request('/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/signin');
    const config = await app().request('/config?tab=tokens');
    expect(config.status).toBe(302);
    expect(config.headers.get('location')).toBe('/signin?next=%2Fconfig%3Ftab%3Dtokens');
  });

  it('serves the sign-in and setup page and exactly its files without sign-in', async () => {
    for (const page of ['/signin', '/setup']) {
      const res = await app().request(page);
      expect(res.status, page).toBe(200);
      expect(await res.text(), page).toContain('<title>sign in</title>');
    }
    for (const file of ['/assets/signin-1.js', '/assets/signin-1.css', '/assets/shared-2.js']) {
      expect((await app().request(file)).status, file).toBe(200);
    }
    // The viewer's and the console's own code are not public.
    for (const file of [
      '/assets/viewer-3.js',
      '/assets/console-4.js',
      '/index.html',
      '/console.html',
    ]) {
      const res = await app().request(file);
      expect(res.status === 404 || res.status === 302, `${file}: ${res.status}`).toBe(true);
    }
  });

  it('serves the viewer, the console pages and every file to a signed-in person', async () => {
    const index = await app().request('/', signedIn);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<div id="root">');
    for (const page of ['/config', '/settings', '/audit', '/people']) {
      const res = await app().request(page, signedIn);
      expect(res.status, page).toBe(200);
      expect(await res.text(), page).toContain('<title>console</title>');
    }
    const asset = await app().request('/assets/viewer-3.js', signedIn);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  it('never serves source maps or the build manifest, signed in or not', async () => {
    for (const path of ['/assets/viewer-3.js.map', '/.vite/manifest.json']) {
      expect((await app().request(path)).status, path).toBe(404);
      expect((await app().request(path, signedIn)).status, path).toBe(404);
    }
  });

  it('puts the security headers on every page: CSP without inline script, no framing, nosniff, no referrer', async () => {
    for (const [path, init] of [
      ['/signin', {}],
      ['/', signedIn],
      ['/healthz', {}],
    ] as const) {
      const res = await app().request(path, init);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toMatch(/frame-ancestors 'none'/);
      expect(csp, path).toMatch(/script-src 'self'(;|$)/);
      expect(csp, path).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });

  it('answers unknown pages and reserved paths with 404, never with a page', async () => {
    expect((await app().request('/monitor/2', signedIn)).status).toBe(404);
    for (const path of ['/ws/viewer', '/mcpx/a']) {
      const res = await app().request(path, signedIn);
      expect(res.status, path).toBe(404);
    }
    const api = await app().request('/api/nothing', signedIn);
    expect(api.status).toBe(404);
  });

  it('explains that the viewer must be built when it is missing', async () => {
    const res = await app(empty).request('/', signedIn);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(text).toContain('npm run build');
    expect(text).toContain(empty);
  });

  it('tells a signed-in plain HTTP client that /tunnel is a WebSocket endpoint (and nobody else)', async () => {
    expect((await app().request('/tunnel?width=800')).status).toBe(401);
    const res = await app().request('/tunnel?width=800', signedIn);
    expect(res.status).toBe(426);
    expect(((await res.json()) as { error: string }).error).toMatch(/subprotocol "guacamole"/);
  });

  it('mounts feature routes before the pages so a page cannot shadow them', async () => {
    const withMount = createApp({
      webRoot: built,
      access: fixture.access,
      mounts: [(a) => a.get('/api/hello', (c) => c.json({ hello: 'world' }))],
    });
    expect((await withMount.request('/api/hello')).status).toBe(401);
    const res = await withMount.request('/api/hello', signedIn);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ hello: 'world' });
  });
});
