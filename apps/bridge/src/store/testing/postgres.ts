// A real PostgreSQL for tests. With OC_TEST_DATABASE_URL: fresh databases (random names) on that
// server, dropped at stop. Otherwise, when Debian's server binaries are installed: a throwaway
// cluster in a temp dir on a free loopback port (run as the `postgres` OS user when we are
// root, since the server refuses to run as root), stopped and deleted at stop — and, for fault
// tests, stopped and started again on the same port with its data kept (`outage`). Otherwise a
// skip reason — which tests turn into a failure when OC_REQUIRE_POSTGRES=1 (CI).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, readFile, readdir, rm, access } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  /** A fresh, empty database of its own. */
  url: string;
  /** Another fresh, empty database on the same server (dropped or deleted at stop). */
  newDatabase(): Promise<string>;
  stop(): Promise<void>;
  /**
   * The server stopped (fast shutdown: connections end) and started again on the same port and
   * data; only for the throwaway cluster (undefined on OC_TEST_DATABASE_URL's server).
   */
  outage?: { begin(): Promise<void>; end(): Promise<void> };
}

export interface TestPostgresOptions {
  /**
   * Keep fsync and synchronous commit on (the server's defaults). Off by default: tests create
   * many databases and do not test durability; measurements of write cost should pass true.
   */
  durable?: boolean;
}

/** True when a missing PostgreSQL must fail the tests rather than skip them (CI sets it). */
export function postgresRequired(): boolean {
  return process.env.OC_REQUIRE_POSTGRES === '1';
}

export async function startTestPostgres(
  options: TestPostgresOptions = {},
): Promise<TestPostgres | { skip: string }> {
  const external = process.env.OC_TEST_DATABASE_URL?.trim();
  if (external) return onServer({ url: external, stop: () => Promise.resolve() });
  const bin = await findServerBinaries();
  if (bin === undefined) {
    return skip(
      'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run "apt-get install postgresql", or set OC_TEST_DATABASE_URL to a server where the tests may create databases.',
    );
  }
  let owner: { uid: number; gid: number } | undefined;
  if (process.getuid?.() === 0) {
    owner = await osUser('postgres');
    if (owner === undefined) {
      return skip(
        'running as root and there is no "postgres" OS user to run the server as (the server refuses root): install Debian\'s postgresql package, which creates it.',
      );
    }
  }
  return onServer(await startCluster(bin, owner, options.durable === true));
}

function skip(reason: string): { skip: string } {
  console.warn(`[testing/postgres] PostgreSQL tests cannot run: ${reason}`);
  return { skip: reason };
}

interface Server {
  url: string;
  /** Runs after the databases are dropped. */
  stop(): Promise<void>;
  halt?: () => Promise<void>;
  resume?: () => Promise<void>;
}

/** Fresh databases on `server`. */
async function onServer(server: Server): Promise<TestPostgres> {
  const serverUrl = server.url;
  let admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const created: string[] = [];
  async function newDatabase(): Promise<string> {
    const name = `oc_test_${randomBytes(6).toString('hex')}`;
    // Identifiers cannot be bound parameters; the name is ours and quoted anyway.
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
    created.push(name);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }
  const url = await newDatabase();
  const { halt, resume } = server;
  /** Between outage.begin() and end(): the admin connection is closed. */
  let down = false;
  const outage =
    halt === undefined || resume === undefined
      ? undefined
      : {
          async begin() {
            down = true;
            await admin.end();
            await halt();
          },
          async end() {
            await resume();
            admin = new pg.Client({ connectionString: serverUrl });
            await admin.connect();
            down = false;
          },
        };
  return {
    url,
    newDatabase,
    ...(outage === undefined ? {} : { outage }),
    async stop() {
      try {
        // A test that failed during an outage: the throwaway cluster goes as a whole.
        for (const name of down ? [] : created) {
          // WITH (FORCE) (pg ≥ 13) ends connections a failed test may have left open.
          await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(name)} WITH (FORCE)`);
        }
      } finally {
        if (!down) await admin.end();
        await server.stop();
      }
    },
  };
}

async function findServerBinaries(): Promise<string | undefined> {
  const root = '/usr/lib/postgresql';
  let versions: string[];
  try {
    versions = await readdir(root);
  } catch {
    return undefined;
  }
  versions.sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    try {
      await access(join(bin, 'initdb'));
      await access(join(bin, 'postgres'));
      return bin;
    } catch {
      // This version lacks the server binaries (client-only package); try the next.
    }
  }
  return undefined;
}

async function osUser(name: string): Promise<{ uid: number; gid: number } | undefined> {
  const passwd = await readFile('/etc/passwd', 'utf8');
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined) {
      return { uid: Number(uid), gid: Number(gid) };
    }
  }
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a program to completion; rejects with its output when it fails. */
async function run(
  command: string,
  args: string[],
  owner: { uid: number; gid: number } | undefined,
): Promise<void> {
  // cwd: the postgres user may not be allowed into ours.
  const child = spawn(command, args, { ...owner, cwd: tmpdir(), env: serverEnv(), stdio: 'pipe' });
  const output = collect(child);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`${command} failed (exit ${code}):\n${output()}`);
}

function serverEnv(): NodeJS.ProcessEnv {
  // The C locale needs nothing installed; the rest of our environment is none of its business.
  return { PATH: process.env.PATH, LANG: 'C', LC_ALL: 'C' };
}

/** Keeps the last 64 KiB a child wrote, for error messages. */
function collect(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString('utf8')).slice(-65_536);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
}

async function startCluster(
  bin: string,
  owner: { uid: number; gid: number } | undefined,
  durable: boolean,
): Promise<Server> {
  const dir = await mkdtemp(join(tmpdir(), 'oc-test-pg-'));
  let server: ChildProcess | undefined;
  const killOnExit = () => server?.kill('SIGKILL');
  try {
    if (owner) await chown(dir, owner.uid, owner.gid);
    const data = join(dir, 'data');
    await run(
      join(bin, 'initdb'),
      ['-D', data, '-A', 'trust', '-U', 'oc', '-E', 'UTF8', '--locale=C', '--no-sync'],
      owner,
    );
    const speed = durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off'];
    /** Starts the server on `port` and waits until it takes connections. */
    const launch = async (port: number): Promise<void> => {
      // Loopback TCP only; the unix socket goes into our temp dir, not /var/run/postgresql.
      const args = ['-D', data, '-p', String(port), '-k', dir];
      args.push('-c', 'listen_addresses=127.0.0.1', ...speed);
      const started = spawn(join(bin, 'postgres'), args, {
        ...owner,
        cwd: dir,
        env: serverEnv(),
        stdio: 'pipe',
      });
      server = started;
      process.once('exit', killOnExit);
      const output = collect(started);
      const exited = new Promise<never>((_, reject) => {
        started.once('exit', (code) => reject(new Error(`postgres exited (${code})`)));
      });
      // It also rejects at the normal stop, long after the race below is over.
      exited.catch(() => undefined);
      try {
        await Promise.race([waitForConnections(urlOf(port)), exited]);
      } catch (err) {
        await stopServer(started);
        process.removeListener('exit', killOnExit);
        throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${output()}`);
      }
    };
    const halt = async (): Promise<void> => {
      if (server !== undefined) await stopServer(server);
      process.removeListener('exit', killOnExit);
    };
    // A port found free can be taken before the server binds it: try a few.
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      try {
        await launch(port);
      } catch (err) {
        if (attempt < 3 && (err as Error).message.includes('could not bind')) continue;
        throw err;
      }
      return {
        url: urlOf(port),
        async stop() {
          await halt();
          await rm(dir, { recursive: true, force: true });
        },
        halt,
        // The same port: the bridge's pool reconnects to the URL it was given.
        resume: () => launch(port),
      };
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

function urlOf(port: number): string {
  return `postgres://oc@127.0.0.1:${port}/postgres`;
}

async function waitForConnections(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Fast shutdown (SIGINT), then SIGKILL if it has not exited within 10 s. */
async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGINT');
  const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
