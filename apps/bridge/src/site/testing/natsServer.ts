// Test support: a real nats-server (Debian's /usr/sbin/nats-server, or OC_NATS_SERVER) with
// JetStream on, listening on a free loopback port with its store in a temp dir, requiring a
// token (a site's NATS must require credentials: anyone who may publish there controls the
// site). Stopped, and its dir deleted, at stop; `restart()` stops it and starts it again on the
// same port and store, and `outage` stops it until told to start it again (fault tests). Without
// the binary: a skip reason, which tests turn into a failure when OC_REQUIRE_NATS=1 or
// OC_REQUIRE_POSTGRES=1 (CI installs both).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@overlay-companion/gateway';
import { registerSecret } from '../../testing/testLogs.js';

export interface TestNats {
  /** The server's address without credentials, e.g. nats://127.0.0.1:4222. */
  address: string;
  /** The token it requires. */
  token: string;
  /** OC_NATS_URL with the token in it: nats://TOKEN@127.0.0.1:PORT. */
  url: string;
  restart(): Promise<void>;
  /** The server stopped (SIGTERM) and, at end(), started again on its port and store. */
  outage: { begin(): Promise<void>; end(): Promise<void> };
  stop(): Promise<void>;
}

export const NATS_BINARY = process.env.OC_NATS_SERVER ?? '/usr/sbin/nats-server';

/** True when a missing nats-server must fail the tests rather than skip them (CI). */
export function natsRequired(): boolean {
  return process.env.OC_REQUIRE_NATS === '1' || process.env.OC_REQUIRE_POSTGRES === '1';
}

export async function startTestNats(): Promise<TestNats | { skip: string }> {
  try {
    await access(NATS_BINARY);
  } catch {
    const reason = `nats-server is not installed (no ${NATS_BINARY}): run "apt-get install nats-server".`;
    console.warn(`[testing/natsServer] site tests cannot run: ${reason}`);
    return { skip: reason };
  }
  const dir = await mkdtemp(join(tmpdir(), 'oc-test-nats-'));
  const token = randomBytes(18).toString('base64url');
  registerSecret(token);
  let port = 0;
  let child: ChildProcess | undefined;
  let output = '';
  const killOnExit = (): void => {
    child?.kill('SIGKILL');
  };
  const launch = async (): Promise<void> => {
    output = '';
    const started = spawn(
      NATS_BINARY,
      ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'js'), '--auth', token],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, env: { PATH: process.env.PATH } },
    );
    child = started;
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-16_384);
    };
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    process.once('exit', killOnExit);
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (started.exitCode !== null || Date.now() > deadline)
        throw new Error(`nats-server did not start on port ${port}:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // JetStream is ready a moment after the port opens.
    const ready = Date.now() + 10_000;
    while (!output.includes('Server is ready') && Date.now() < ready)
      await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const halt = async (): Promise<void> => {
    const running = child;
    child = undefined;
    process.removeListener('exit', killOnExit);
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  for (let attempt = 1; ; attempt += 1) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (err) {
      await halt();
      if (attempt >= 3) {
        await rm(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const address = `nats://127.0.0.1:${port}`;
  return {
    address,
    token,
    url: `nats://${token}@127.0.0.1:${port}`,
    restart: async () => {
      await halt();
      await launch();
    },
    outage: { begin: halt, end: launch },
    stop: async () => {
      await halt();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
