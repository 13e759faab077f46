// `--only desktops`: what a desktop costs on this machine, now that desktops are records and local
// ones start on demand in a bubblewrap sandbox.
// - idle: `count` sandboxed local desktops (startLocalDesktop with sandbox, openbox and an xterm,
//   as the bridge's pool starts them), left alone: memory of each one's process tree (bwrap,
//   Xvnc, openbox, xterm; RSS, and PSS, which splits shared pages between processes) and CPU
//   over `idleSeconds`.
// - open → first frame: a bridge wired as `serve --local-desktops per-person` wires it (embedded
//   gateway, LocalDesktopPool, startWithDesktopControl); a new person's never-started desktop is
//   opened, timed from the ticket until the tunnel's first `sync` after a drawing on layer 0
//   (guacamole-common-js's "connected"); target ≤ 3 s.
// - load: `count` desktops, each with its own person and AI (an MCP client with that person's
//   token) calling draw_overlay and click_at in turn at `rate` calls per second for
//   `loadSeconds`; round trips and errors. The control window of each desktop is the bridge
//   tests' ScriptedViewer (a `ws` client answering tool calls from scripts), not Chromium: ten
//   viewer pages do not fit beside ten desktops on two cores. So click_at is relayed and
//   answered but presses nothing on X, and the numbers are the bridge's relay at that load,
//   with every desktop started and its tunnel open.
// The bridge runs in this process (the bench's own clients share its event loop).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  JOIN_SECRET_ARG,
  startGateway,
  startLocalDesktop,
  type Gateway,
  type LocalDesktop,
} from '@overlay-companion/gateway';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { tokenHint } from '../apps/bridge/src/auth/apiTokens.js';
import { sha256Hex } from '../apps/bridge/src/auth/secrets.js';
import { LocalDesktopPool } from '../apps/bridge/src/desktops/localDesktopPool.js';
import { startWithDesktopControl, type ControlledBridge } from '../apps/bridge/src/bridge.js';
import { ScriptedViewer } from '../apps/bridge/src/mcp/testing/scriptedViewer.js';
import { newId } from '../apps/bridge/src/store/ids.js';
import { startTestAccess, type TestAccess } from '../apps/bridge/src/testing/testAccess.js';
import { TunnelClient } from '../apps/bridge/src/testing/tunnelClient.js';
import { callTool, closeHttp, connectHttp, sleep } from './mcpClient.js';
import { summarize, type Summary } from './stats.js';
import { treeCpuMs } from './streamCpu.js';

export interface DesktopsResults {
  idle: {
    desktops: number;
    start_ms: Summary;
    /** Per desktop: the processes of one tree, e.g. ["bwrap", "bwrap", "Xvnc", …]. */
    processes: string[];
    rss_mb_per_desktop: Summary;
    pss_mb_per_desktop: Summary;
    rss_mb_total: number;
    pss_mb_total: number;
    seconds: number;
    /** CPU of all of them together over `seconds`, in percent of one core. */
    cpu_percent_total: number;
    cpu_percent_per_desktop: Summary;
    /** CPU each tree used from its start until the idle window began (the counter's sanity). */
    cpu_ms_to_start_per_desktop: Summary;
  };
  open_to_first_frame: {
    runs: number;
    /** Ticket issued → the tunnel's first sync after a drawing (the desktop started meanwhile). */
    ms: Summary;
    /** …of which: ticket → WebSocket open (the upgrade). */
    upgrade_ms: Summary;
    target: { target: '<= 3000'; measured: number; met: boolean };
  };
  load: {
    desktops: number;
    viewer: 'scripted';
    seconds: number;
    rate_per_desktop: number;
    calls: number;
    errors: number;
    error_examples: string[];
    draw_overlay_ms: Summary;
    click_at_ms: Summary;
    /** Bench + bridge process RSS after the run (the desktops are other processes). */
    node_rss_mb: number;
  };
}

const MB = 1024 * 1024;
const round1 = (v: number) => Math.round(v * 10) / 10;

export async function benchDesktops(options: {
  count: number;
  idleSeconds: number;
  openRuns: number;
  loadSeconds: number;
  rate: number;
  log: (line: string) => void;
}): Promise<DesktopsResults> {
  options.log(`bench desktops: ${options.count} idle sandboxed desktops`);
  const idle = await idleDesktops(options.count, options.idleSeconds);
  const stack = await startPerPersonBridge();
  try {
    options.log(`bench desktops: open → first frame, ${options.openRuns} runs`);
    const open = await openToFirstFrame(stack, options.openRuns);
    options.log(
      `bench desktops: ${options.count} desktops × ${options.rate} calls/s for ${options.loadSeconds} s`,
    );
    const load = await loadDesktops(stack, options);
    return { idle, open_to_first_frame: open, load };
  } finally {
    await stack.close();
  }
}

// ---- idle desktops ----

async function idleDesktops(count: number, seconds: number): Promise<DesktopsResults['idle']> {
  const desktops: LocalDesktop[] = [];
  const startTimes: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      desktops.push(
        await startLocalDesktop({ sandbox: true, xterm: true, windowManager: true, password: 'x' }),
      );
      startTimes.push(performance.now() - started);
    }
    await sleep(3_000); // xterm and openbox finish starting; nothing moves after that
    const roots = desktops.map((d) => d.sandbox?.bwrapPid ?? d.pid);
    const memory = await Promise.all(roots.map(treeMemory));
    const before = roots.map(treeCpuMs);
    await sleep(seconds * 1000);
    const cpu = roots.map((root, i) => (treeCpuMs(root) - (before[i] ?? 0)) / (seconds * 10));
    const rss = memory.map((m) => m.rss / MB);
    const pss = memory.map((m) => m.pss / MB);
    return {
      desktops: count,
      start_ms: summarize(startTimes),
      processes: memory[0]?.names ?? [],
      rss_mb_per_desktop: summarize(rss),
      pss_mb_per_desktop: summarize(pss),
      rss_mb_total: round1(rss.reduce((a, b) => a + b, 0)),
      pss_mb_total: round1(pss.reduce((a, b) => a + b, 0)),
      seconds,
      cpu_percent_total: round1(cpu.reduce((a, b) => a + b, 0)),
      cpu_percent_per_desktop: summarize(cpu),
      cpu_ms_to_start_per_desktop: summarize(before),
    };
  } finally {
    await Promise.all(desktops.map((d) => d.stop()));
  }
}

/** RSS and PSS (bytes) of `root` and its descendants, with their names. */
async function treeMemory(root: number): Promise<{ rss: number; pss: number; names: string[] }> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat === '') continue;
    parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  let rss = 0;
  let pss = 0;
  const names: string[] = [];
  for (const pid of tree) {
    const kb = (text: string, key: string) =>
      Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
    rss += kb(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''), 'VmRSS');
    pss += kb(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => ''), 'Pss');
    names.push((await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '?')).trim());
  }
  return { rss, pss, names };
}

// ---- a bridge as `serve --local-desktops per-person` runs it ----

interface PerPersonBridge {
  fixture: TestAccess;
  bridge: ControlledBridge;
  pool: LocalDesktopPool;
  /** A new member with an API token of theirs (their desktop is made when first needed). */
  addPerson(username: string): Promise<{ id: string; token: string }>;
  ticket(personId: string, socket: 'tunnel' | 'viewer'): Promise<string>;
  close(): Promise<void>;
}

async function startPerPersonBridge(): Promise<PerPersonBridge> {
  const fixture = await startTestAccess();
  const runDir = await mkdtemp(join(tmpdir(), 'oc-bench-desktops-'));
  const joinSecret = randomBytes(32).toString('base64url');
  let gateway: Gateway | undefined;
  let pool: LocalDesktopPool | undefined;
  let bridge: ControlledBridge | undefined;
  const close = async () => {
    await bridge?.close(); // closes the pool too
    await pool?.close();
    await gateway?.close();
    await fixture.close();
    await rm(runDir, { recursive: true, force: true });
  };
  try {
    gateway = await startGateway({
      path: join(runDir, 'gateway.sock'),
      joinSecret,
      vncUnixSockets: [],
      logger: fixture.logger.child({ part: 'gateway' }),
    });
    const started = gateway;
    const bridgeRef: { current?: ControlledBridge } = {};
    pool = new LocalDesktopPool({
      logger: fixture.logger.child({ part: 'local-desktops' }),
      allowSocket: (path) => started.allowVncUnixSocket(path),
      inUse: (desktopId) => bridgeRef.current?.tunnels.inUse(desktopId) ?? false,
    });
    const address = { path: gateway.path };
    bridge = await startWithDesktopControl(
      {
        host: '127.0.0.1',
        port: 0,
        dataDir: fixture.dataDir,
        webRoot: join(fixture.dataDir, 'no-web-build'),
        guacd: address,
        connection: { protocol: 'vnc', params: { [JOIN_SECRET_ARG]: joinSecret } },
      },
      {
        access: fixture.access,
        initialMode: 'autopilot',
        perPersonLocal: { params: {} },
        gateway: { address, joinSecretArg: JOIN_SECRET_ARG, joinSecret },
        localDesktops: pool,
      },
      { logger: fixture.logger },
    );
    bridgeRef.current = bridge;
  } catch (err) {
    await close();
    throw err;
  }
  const { store } = fixture;
  return {
    fixture,
    bridge,
    pool,
    addPerson: async (username) => {
      const person = await store.people.add({
        username,
        displayName: username,
        passwordHash: null,
        role: 'member',
      });
      const token = `bench-token-${randomBytes(18).toString('base64url')}`;
      await store.tokens.create({
        id: newId('tok'),
        personId: person.id,
        name: `${username}'s AI`,
        tokenHash: sha256Hex(token),
        hint: tokenHint(token),
        createdAt: Date.now(),
        expiresAt: null,
      });
      return { id: person.id, token };
    },
    // A ticket as the test fixtures mint one (an in-process sign-in session of the person).
    ticket: (personId, socket) => fixture.ticket(socket, personId),
    close,
  };
}

/** Resolves when the tunnel's first frame with a drawing on the default layer has ended. */
async function firstFrame(client: TunnelClient, timeoutMs = 30_000): Promise<void> {
  const drawn = await client.waitFor(
    (i) =>
      i.opcode === 'error' ||
      (i.opcode === 'img' && i.args[2] === '0') ||
      (i.opcode === 'cfill' && i.args[1] === '0') ||
      (i.opcode === 'copy' && i.args[6] === '0'),
    { timeoutMs, what: 'a drawing on the desktop layer' },
  );
  if (drawn.opcode === 'error') throw new Error(`The tunnel failed: ${drawn.args.join(' / ')}`);
  await client.waitForOpcode('sync', { from: client.instructions.indexOf(drawn), timeoutMs });
}

// ---- open → first frame ----

async function openToFirstFrame(
  stack: PerPersonBridge,
  runs: number,
): Promise<DesktopsResults['open_to_first_frame']> {
  const total: number[] = [];
  const upgrade: number[] = [];
  for (let i = 0; i < runs; i++) {
    const person = await stack.addPerson(`first-frame-${i}`);
    const started = performance.now();
    const client = await TunnelClient.open(
      stack.bridge.url,
      await stack.ticket(person.id, 'tunnel'),
    );
    upgrade.push(performance.now() - started);
    try {
      await firstFrame(client);
      total.push(performance.now() - started);
    } finally {
      await client.close();
    }
    // Stop it again, so the next run starts as cold (the pool would keep it until idle).
    const own = (await stack.bridge.desktopControl.directory.list()).find(
      (e) => e.record.ownerId === person.id,
    );
    if (own !== undefined) await stack.pool.stop(own.record.id);
  }
  const ms = summarize(total);
  return {
    runs,
    ms,
    upgrade_ms: summarize(upgrade),
    target: { target: '<= 3000', measured: ms.p50, met: ms.p99 <= 3000 },
  };
}

// ---- load: many desktops, an AI on each ----

const OVERLAY = { x: 100, y: 100, width: 80, height: 40, color: 'gold', opacity: 0.4 };
const DRAW_RESULT = {
  result: {
    overlay_id: 'ov_bench',
    bounds: { x: 100, y: 100, width: 80, height: 40 },
    monitor_index: 0,
  },
};
const CLICK_RESULT = { result: { success: true, was_confirmed: false } };

async function loadDesktops(
  stack: PerPersonBridge,
  options: { count: number; loadSeconds: number; rate: number },
): Promise<DesktopsResults['load']> {
  const tunnels: TunnelClient[] = [];
  const viewers: ScriptedViewer[] = [];
  const clients: Client[] = [];
  try {
    for (let i = 0; i < options.count; i++) {
      const person = await stack.addPerson(`load-${i}`);
      const tunnel = await TunnelClient.open(
        stack.bridge.url,
        await stack.ticket(person.id, 'tunnel'),
      );
      tunnels.push(tunnel);
      await firstFrame(tunnel);
      const viewer = await ScriptedViewer.connectWithTicket(
        stack.bridge.url,
        await stack.ticket(person.id, 'viewer'),
      );
      viewer.on('draw_overlay', DRAW_RESULT).on('click_at', CLICK_RESULT);
      viewers.push(viewer);
      clients.push(await connectHttp(stack.bridge.mcpUrl, person.token, `oc-bench-desktop-${i}`));
    }
    // One unrecorded call each (tools/list, the first relay).
    await Promise.all(clients.map((c) => callTool(c, 'draw_overlay', OVERLAY)));

    const times: Record<'draw_overlay' | 'click_at', number[]> = { draw_overlay: [], click_at: [] };
    const examples: string[] = [];
    let errors = 0;
    let calls = 0;
    const interval = 1000 / options.rate;
    const started = performance.now();
    const deadline = started + options.loadSeconds * 1000;
    await Promise.all(
      clients.map(async (client, i) => {
        let next = started + (interval * i) / clients.length;
        await sleep(next - performance.now());
        for (let n = 0; performance.now() < deadline; n++) {
          const tool = n % 2 === 0 ? 'draw_overlay' : 'click_at';
          const args = tool === 'draw_overlay' ? OVERLAY : { x: 200 + (n % 50), y: 200 };
          const start = performance.now();
          try {
            const outcome = await callTool(client, tool, args);
            if (outcome.isError) {
              errors++;
              if (examples.length < 5) examples.push(outcome.text.slice(0, 300));
            }
          } catch (err) {
            errors++;
            if (examples.length < 5) examples.push(String(err).slice(0, 300));
          }
          times[tool].push(performance.now() - start);
          calls++;
          next += interval;
          await sleep(next - performance.now());
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      desktops: options.count,
      viewer: 'scripted',
      seconds: Math.round(seconds * 100) / 100,
      rate_per_desktop: options.rate,
      calls,
      errors,
      error_examples: examples,
      draw_overlay_ms: summarize(times.draw_overlay),
      click_at_ms: summarize(times.click_at),
      node_rss_mb: round1(process.memoryUsage().rss / MB),
    };
  } finally {
    await Promise.all(clients.map((c) => closeHttp(c)));
    await Promise.all(viewers.map((v) => v.close()));
    await Promise.all(tunnels.map((t) => t.close()));
  }
}
