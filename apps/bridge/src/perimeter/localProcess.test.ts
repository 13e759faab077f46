// The perimeter as a local attacker sees it: a real `serve --desktop local` with a person signed
// in, a viewer and a desktop connection open, and every log line it wrote (debug level). The
// attacker is a process on the same machine that read all of that output and tries every way in:
// every TCP port and Unix socket the bridge's process tree listens on, with every id- or
// secret-looking string from the logs as ticket, token or connection id; and, as another OS user,
// the X display with the cookie path the banner names. None of it reaches the desktop: the pointer,
// parked at a known spot first, has not moved when it is done.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  GuacTestClient,
  tcpListenersOf,
  unixListenersOf,
} from '@overlay-companion/gateway/testing';
import { API } from '@overlay-companion/protocol';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  printedDesktop,
  scriptedServeEnv,
  startServe,
  type CliProcess,
} from '../headless/testing/cliProcess.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { signIn, type BrowserSession } from '../testing/browserSession.js';
import { TunnelClient } from '../testing/tunnelClient.js';

const run = promisify(execFile);

let dataDir: string;
let cli: CliProcess;
let url: string;
let session: BrowserSession;
let xEnv: NodeJS.ProcessEnv;
let viewer: ScriptedViewer;
let tunnel: TunnelClient;

/** The pid of `serve` and every process it started (Xvnc, openbox, xterm …). */
async function processTree(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(Number(entry), ppid);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** Everything the attacker could take for a secret: ids, tokens, codes, long random strings. */
function candidates(logs: string): string[] {
  const found = new Set<string>();
  for (const match of logs.matchAll(/[A-Za-z0-9_-]{8,}/g)) found.add(match[0]);
  return [...found];
}

async function pointer(): Promise<string> {
  return (await run('xdotool', ['getmouselocation'], { env: xEnv })).stdout.trim();
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'oc-perimeter-'));
  const scripted = scriptedServeEnv();
  ({ cli, url } = await startServe(
    ['--desktop', 'local', '--port', '0', '--data-dir', join(dataDir, 'data')],
    { ...scripted.env, OC_LOG_LEVEL: 'debug' },
  ));
  ({ xEnv } = printedDesktop(cli.stdout()));
  session = await signIn(url, scripted.username, scripted.password);
  viewer = await ScriptedViewer.connect(session);
  tunnel = await TunnelClient.open(url, await session.ticket('tunnel'));
  await tunnel.waitForOpcode('sync', { timeoutMs: 20_000 });
  await run('xdotool', ['mousemove', '17', '23'], { env: xEnv });
}, 90_000);

afterAll(async () => {
  await viewer?.close();
  await tunnel?.close();
  await cli?.shutdown();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a local process that read every log and tries every listener', () => {
  it('finds one TCP port — the bridge — and nothing behind it without a ticket or token', async () => {
    const logs = `${cli.stdout()}\n${cli.stderr()}`;
    const secrets = candidates(logs);
    // The log saw the activity (so the attacker had something to read).
    expect(logs).toMatch(/viewer joined/);
    expect(logs).toMatch(/tunnel open/);
    const tree = await processTree(cli.child.pid ?? 0);
    const ports = new Set<number>();
    for (const pid of tree)
      for (const l of await tcpListenersOf(pid).catch(() => [])) ports.add(l.port);
    const bridgePort = Number(new URL(url).port);
    expect([...ports]).toEqual([bridgePort]);

    const origin = new URL(url).origin;
    // Pages and API: sign-in first.
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(302);
    const ticket = await fetch(new URL(API.tickets, url), {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: '{"socket":"tunnel"}',
    });
    expect(ticket.status).toBe(401);
    for (const secret of secrets) {
      // As a ticket on both sockets, as a bearer token on /mcp, as a cookie.
      for (const path of ['/tunnel', '/ws/viewer']) {
        const opened = await new Promise<number>((resolve) => {
          const ws = new WebSocket(
            `${url.replace('http', 'ws')}${path.slice(1)}?ticket=${encodeURIComponent(secret)}`,
            'guacamole',
            { origin },
          );
          ws.once('open', () => {
            ws.close();
            resolve(101);
          });
          ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
          ws.once('error', () => resolve(0));
        });
        expect(opened, `${path} with a string from the logs`).toBe(401);
      }
      const mcp = await fetch(new URL('/mcp', url), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${secret}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(mcp.status).toBe(401);
      const me = await fetch(new URL(API.me, url), { headers: { cookie: `oc_session=${secret}` } });
      expect(me.status).toBe(401);
    }
  }, 120_000);

  it('cannot join or start a desktop connection through the gateway socket, even as the same user', async () => {
    const logs = `${cli.stdout()}\n${cli.stderr()}`;
    const tree = await processTree(cli.child.pid ?? 0);
    const sockets = new Set<string>();
    for (const pid of tree)
      for (const path of await unixListenersOf(pid).catch(() => [])) sockets.add(path);
    const gateway = [...sockets].find((path) => path.endsWith('gateway.sock'));
    // The desktop runs sandboxed: its Xvnc lists its socket as it sees it (/run/desktop/rfb/…);
    // on the host that socket is in the desktop's work dir, next to its X cookie.
    const seen = [...sockets].find((path) => path.endsWith('rfb.sock'));
    expect(gateway, [...sockets].join(', ')).toBeDefined();
    expect(seen).toBeDefined();
    const cookie = /XAUTHORITY=([^;\s]+);/.exec(logs)?.[1];
    const rfb = cookie === undefined ? seen : join(dirname(cookie), 'rfb', 'rfb.sock');
    // Joining the live connection with every id-looking string from the logs.
    const ids = candidates(logs).filter((s) => /^[0-9a-f-]{8,}$/i.test(s));
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const join = await GuacTestClient.connect({ path: gateway ?? '' }, { select: `$${id}` });
      expect(join.connectionId, id).toBe('');
      join.close();
    }
    const guess = await GuacTestClient.connect(
      { path: gateway ?? '' },
      { select: '$00000000-0000-0000-0000-000000000000' },
    );
    expect(guess.connectionId).toBe('');
    guess.close();
    // A new connection to the desktop's own RFB socket needs its VNC password, never logged.
    const fresh = await GuacTestClient.connect(
      { path: gateway ?? '' },
      { select: 'vnc', params: { hostname: rfb ?? '' } },
    );
    await fresh.waitFor(() => fresh.errors.length > 0 || fresh.closed, 'a refusal', 15_000);
    expect(fresh.frames).toBe(0);
    expect(fresh.errors[0]?.message ?? 'closed').toMatch(/auth|password|closed/i);
    fresh.close();
  }, 60_000);

  it('cannot use the X display as another OS user, even knowing where its cookie is', async () => {
    const { xEnv: printed } = printedDesktop(cli.stdout());
    const cookieDir = dirname(printed.XAUTHORITY ?? '');
    const asNobody = await run('runuser', [
      '-u',
      'nobody',
      '--',
      'env',
      `DISPLAY=${printed.DISPLAY ?? ''}`,
      `XAUTHORITY=${printed.XAUTHORITY ?? ''}`,
      'xdotool',
      'mousemove',
      '400',
      '300',
    ]).then(
      () => 'moved',
      (err: { stderr?: string }) => err.stderr ?? 'refused',
    );
    expect(asNobody).not.toBe('moved');
    const listing = await run('runuser', ['-u', 'nobody', '--', 'ls', cookieDir]).then(
      () => 'listed',
      () => 'refused',
    );
    expect(listing).toBe('refused');
  });

  it('left the desktop untouched: the pointer is where the test parked it', async () => {
    expect(await pointer()).toMatch(/^x:17 y:23 /);
  });
});
