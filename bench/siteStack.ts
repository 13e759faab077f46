// The processes of the `site` load run, all real and on this machine's loopback: a nats-server
// with JetStream and PostgreSQL (the test helpers' throwaway ones), two `overlay-companion gateway`
// processes with a pool secret, and three `overlay-companion serve` processes of one site
// (DATABASE_URL + OC_NATS_URL) using both gateways as their pool (--gateways), each in autopilot
// so AI input runs without a person approving it. Plus the process ids of each (for RSS) and a
// way to read a process's RSS, PostgreSQL's summed over its server processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, readdir, readlink } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { freePort } from '@overlay-companion/gateway';
import { startTestNats, type TestNats } from '../apps/bridge/src/site/testing/natsServer.js';
import { startTestPostgres, type TestPostgres } from '../apps/bridge/src/store/testing/postgres.js';
import {
  BRIDGE_MAIN,
  REPO_ROOT,
  startStack,
  type RemoteStack,
} from '../e2e/support/bridgeProcess.js';

export interface SiteStack {
  nats: TestNats;
  databaseUrl: string;
  bridges: RemoteStack[];
  gateways: { pid: number; port: number }[];
  /** Process ids by name (bridge-1…, gateway-1…, nats, postgres) for RSS. */
  pids(): Promise<Record<string, number[]>>;
  stop(): Promise<void>;
}

export const SITE_BRIDGES = 3;
export const SITE_GATEWAYS = 2;

export async function startSiteStack(firstDesktop: {
  host: string;
  port: number;
}): Promise<SiteStack> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    const nats = await startTestNats();
    if ('skip' in nats) throw new Error(`the site bench needs nats-server: ${nats.skip}`);
    stops.push(() => nats.stop());
    const postgres: TestPostgres | { skip: string } = await startTestPostgres({ durable: true });
    if ('skip' in postgres) throw new Error(`the site bench needs PostgreSQL: ${postgres.skip}`);
    stops.push(() => postgres.stop());
    const databaseUrl = await postgres.newDatabase();

    const poolSecret = randomBytes(32).toString('base64url');
    const gateways: { pid: number; port: number; child: ChildProcess }[] = [];
    for (let i = 0; i < SITE_GATEWAYS; i++) {
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [BRIDGE_MAIN, 'gateway', '--listen', `127.0.0.1:${String(port)}`, '--log-level', 'warn'],
        {
          cwd: REPO_ROOT,
          stdio: ['ignore', 'ignore', 'ignore'],
          env: { ...process.env, OC_GATEWAY_SECRET: poolSecret },
        },
      );
      stops.push(() => stopChild(child));
      await listening(port);
      gateways.push({ pid: child.pid ?? 0, port, child });
    }

    const env = {
      DATABASE_URL: databaseUrl,
      OC_NATS_URL: nats.url,
      OC_SECRET_KEY: randomBytes(32).toString('base64url'),
      OC_GATEWAY_SECRET: poolSecret,
      OC_LOG_LEVEL: 'warn',
    };
    const pool = gateways.map((g) => `gateway://127.0.0.1:${String(g.port)}`).join(',');
    const bridges: RemoteStack[] = [];
    // One after the other: the first migrates the database and makes the admin.
    for (let i = 0; i < SITE_BRIDGES; i++) {
      const bridge = await startStack({
        source: ['--vnc', `${firstDesktop.host}:${String(firstDesktop.port)}`],
        flags: ['--mode', 'autopilot', '--gateways', pool],
        env,
        mcp: false,
        timeoutMs: 60_000,
      });
      stops.push(() => bridge.stop());
      bridges.push(bridge);
    }
    return {
      nats,
      databaseUrl,
      bridges,
      gateways: gateways.map(({ pid, port }) => ({ pid, port })),
      pids: async () => ({
        ...Object.fromEntries(bridges.map((b, i) => [`bridge-${String(i + 1)}`, [b.pid]])),
        ...Object.fromEntries(gateways.map((g, i) => [`gateway-${String(i + 1)}`, [g.pid]])),
        nats: await listenerPids(new URL(nats.url).port),
        postgres: await serverFamily(new URL(databaseUrl).port),
      }),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Resident set size of the processes, in MB. */
export async function rssMb(pids: readonly number[]): Promise<number> {
  let kb = 0;
  for (const pid of pids) {
    const status = await readFile(`/proc/${String(pid)}/status`, 'utf8').catch(() => '');
    kb += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return Math.round(kb / 102.4) / 10;
}

function listening(port: number, deadline = Date.now() + 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', () => {
      if (Date.now() > deadline) reject(new Error(`nothing listens on ${String(port)}`));
      else setTimeout(() => void listening(port, deadline).then(resolve, reject), 100);
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The processes listening on a loopback TCP port (by socket inode, from /proc). */
async function listenerPids(port: string): Promise<number[]> {
  const hexPort = Number(port).toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local address ends with :PORT, state 0A = LISTEN
      if (cols[1]?.endsWith(`:${hexPort}`) === true && cols[3] === '0A' && cols[9] !== undefined)
        inodes.add(cols[9]);
    }
  }
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fds = await readdir(`/proc/${entry}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const link = await readlink(`/proc/${entry}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode !== undefined && inodes.has(inode)) {
        pids.push(Number(entry));
        break;
      }
    }
  }
  return pids;
}

/** PostgreSQL's postmaster on the port and every server process it started. */
async function serverFamily(port: string): Promise<number[]> {
  const roots = await listenerPids(port);
  const family = new Set(roots);
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (family.has(ppid)) family.add(Number(entry));
  }
  return [...family];
}
