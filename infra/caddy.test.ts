// The Caddyfile: `caddy validate` with a site's settings, no header of its own that would fight
// the bridge's (CSP, framing, Permissions-Policy), and then for real — Caddy (the caddy binary,
// no container) on a free port in front of the bridge started by its container command: the
// bridge's own security headers arrive once, Caddy's defaults fill in only what is missing, the
// Server header is gone, /metrics is not served, MCP answers and its SSE stream come through, and
// WebSocket upgrades to /ws/viewer and /tunnel reach the bridge (a signed-in person's tickets open
// them; none is refused by the bridge itself). The copy run here differs only in what a test
// machine needs: a plain-HTTP site on a free port and no admin endpoint.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { signIn } from '../apps/bridge/src/testing/browserSession.js';
import { keepChildOutput } from '../apps/bridge/src/testing/testLogs.js';
import { refusedUpgrade } from '../apps/bridge/src/testing/tunnelClient.js';
import { formatCalVer, fromNpmVersion } from '../apps/bridge/src/calver.js';
import {
  REPO,
  freePort,
  missingBuild,
  startContainerBridge,
  waitHealthy,
  type ContainerBridge,
} from './testing/containerBridge.js';

const run = promisify(execFile);
const CADDYFILE = join(import.meta.dirname, 'Caddyfile');

describe('Caddyfile', () => {
  it('passes caddy validate with a site name, TLS e-mail and upstream', async () => {
    const { stdout, stderr } = await run(
      'caddy',
      ['validate', '--config', CADDYFILE, '--adapter', 'caddyfile'],
      {
        env: {
          ...process.env,
          OC_DOMAIN: 'desk.example.test',
          OC_ACME_EMAIL: 'ops@example.test',
          OC_BRIDGE_UPSTREAM: 'bridge:8080',
        },
      },
    );
    expect(stdout + stderr).toContain('Valid configuration');
  });

  it("sets no header that would fight the bridge's own, and only defaults (?) for the rest", async () => {
    const text = (await readFile(CADDYFILE, 'utf8')).replace(/^\s*#.*$/gm, '');
    const block = /\bheader \{([^}]*)\}/.exec(text)?.[1] ?? '';
    const lines = block
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^([?-]|defer$|Strict-Transport-Security )/);
    expect(text).not.toMatch(/Content-Security-Policy|X-Frame-Options|Permissions-Policy/i);
  });
});

const missing = missingBuild();
if (missing !== undefined) console.warn(`skipping the live Caddy test: ${missing}`);

describe.skipIf(missing !== undefined)('Caddy in front of the bridge', () => {
  let dir: string;
  let caddy: ChildProcess | undefined;
  let bridge: ContainerBridge | undefined;
  let site: string;
  const admin = { user: 'admin', password: `pw-${randomBytes(12).toString('base64url')}` };
  const token = `env-${randomBytes(24).toString('base64url')}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-caddy-'));
    const port = await freePort();
    site = `http://localhost:${port}`;
    bridge = await startContainerBridge({
      OC_PUBLIC_URL: site,
      OC_ADMIN_USER: admin.user,
      OC_ADMIN_PASSWORD: admin.password,
      OC_MCP_TOKEN: token,
      OC_LOG_LEVEL: 'warn',
    });
    await waitHealthy(bridge, new URL(site).host);
    // The test copy: no admin endpoint (a second Caddy here must not clash on :2019).
    const copy = (await readFile(CADDYFILE, 'utf8')).replace(/^\{\n/m, '{\n\tadmin off\n');
    await writeFile(join(dir, 'Caddyfile'), copy);
    caddy = spawn('caddy', ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        XDG_DATA_HOME: join(dir, 'data'),
        XDG_CONFIG_HOME: join(dir, 'config'),
        OC_DOMAIN: site,
        OC_ACME_EMAIL: 'ops@example.test',
        OC_BRIDGE_UPSTREAM: `127.0.0.1:${bridge.port}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    keepChildOutput('caddy', caddy);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const answer = await fetch(`${site}/healthz`).catch(() => undefined);
      if (answer?.ok) break;
      if (Date.now() > deadline || caddy.exitCode !== null) throw new Error('Caddy did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  afterAll(async () => {
    if (caddy && caddy.exitCode === null) {
      const exited = new Promise((resolve) => caddy!.once('exit', resolve));
      caddy.kill('SIGTERM');
      await exited;
    }
    await bridge?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("passes the bridge's pages with its own security headers once, adds defaults, drops Server", async () => {
    const page = await fetch(`${site}/signin`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('strict-transport-security')).toContain('max-age=31536000');
    expect(page.headers.get('server')).toBeNull();
    const health = await fetch(`${site}/healthz`);
    expect(await health.text()).toBe('ok');
  });

  it('does not serve /metrics to the internet', async () => {
    expect((await fetch(`${site}/metrics`)).status).toBe(404);
  });

  it('carries MCP: initialize answers with the release version, the SSE stream opens', async () => {
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = await fetch(`${site}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'caddy-test', version: '1' },
        },
      }),
    });
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    const body = (await init.json()) as { result: { serverInfo: { version: string } } };
    const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(body.result.serverInfo.version).toBe(formatCalVer(fromNpmVersion(pkg.version)!));
    const common = { ...headers, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-06-18' };
    await fetch(`${site}/mcp`, {
      method: 'POST',
      headers: common,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const controller = new AbortController();
    // The headers must arrive while the stream stays open, long before the bridge's first
    // keep-alive (15 s): a compressor in front held them until then.
    const timer = setTimeout(() => controller.abort(), 5000);
    const stream = await fetch(`${site}/mcp`, {
      headers: { ...common, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    clearTimeout(timer);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await fetch(`${site}/mcp`, { method: 'DELETE', headers: common });
    controller.abort();
  });

  it('upgrades /ws/viewer and /tunnel to WebSockets through to the bridge', async () => {
    const person = await signIn(site, admin.user, admin.password);
    for (const [path, socket] of [
      ['/ws/viewer', 'viewer'],
      ['/tunnel', 'tunnel'],
    ] as const) {
      // Without a ticket the bridge itself refuses the upgrade (401): Caddy passed it on.
      expect((await refusedUpgrade(site, path)).status).toBe(401);
      const ticket = await person.ticket(socket);
      const url = `${site.replace('http', 'ws')}${path}?ticket=${ticket}`;
      const ws =
        socket === 'tunnel'
          ? new WebSocket(url, 'guacamole', { origin: site })
          : new WebSocket(url, { origin: site });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('unexpected-response', (_req, res) =>
          reject(new Error(`${path}: upgrade refused with ${res.statusCode}`)),
        );
        ws.once('error', reject);
      });
      ws.close();
    }
  });
});
