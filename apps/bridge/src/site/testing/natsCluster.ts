// Test support: a real three-node NATS cluster on loopback (Debian's nats-server, or
// OC_NATS_SERVER), JetStream on every node, clients' token required, each node with its own
// store in a temp dir. A node can be killed (SIGKILL: a machine lost, not a shutdown) to see
// what the site's buckets survive. Without the binary: a skip reason (natsServer.ts's rule).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@overlay-companion/gateway';
import { registerSecret } from '../../testing/testLogs.js';
import { NATS_BINARY } from './natsServer.js';

export interface ClusterNode {
  /** The node's server_name (what JetStream names as a stream's leader). */
  name: string;
  /** host:port of its client listener. */
  address: string;
  /** SIGKILL, and waits for the process to be gone. */
  kill(): Promise<void>;
  alive(): boolean;
}

export interface TestNatsCluster {
  nodes: ClusterNode[];
  token: string;
  stop(): Promise<void>;
}

export async function startTestNatsCluster(size = 3): Promise<TestNatsCluster | { skip: string }> {
  try {
    await access(NATS_BINARY);
  } catch {
    return { skip: `nats-server is not installed (no ${NATS_BINARY})` };
  }
  const token = randomBytes(18).toString('base64url');
  registerSecret(token);
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({
      client: await freePort(),
      route: await freePort(),
    })),
  );
  const routes = ports.map((p) => `nats://127.0.0.1:${String(p.route)}`).join(',');
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const nodes: ClusterNode[] = [];
  const killOnExit = (): void => {
    for (const child of children) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  for (const [i, port] of ports.entries()) {
    const dir = await mkdtemp(join(tmpdir(), `oc-test-nats-cluster-${String(i + 1)}-`));
    dirs.push(dir);
    const name = `n${String(i + 1)}`;
    const child = spawn(
      NATS_BINARY,
      [
        ...['-a', '127.0.0.1', '-p', String(port.client), '-js', '-sd', join(dir, 'js')],
        ...['--server_name', name, '--cluster_name', 'oc-test'],
        ...['--cluster', `nats://127.0.0.1:${String(port.route)}`, '--routes', routes],
        ...['--auth', token],
      ],
      { stdio: 'ignore', cwd: dir, env: { PATH: process.env.PATH } },
    );
    children.push(child);
    nodes.push({
      name,
      address: `127.0.0.1:${String(port.client)}`,
      alive: () => child.exitCode === null && child.signalCode === null,
      kill: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      },
    });
  }
  return {
    nodes,
    token,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      for (const node of nodes) await node.kill();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    },
  };
}
