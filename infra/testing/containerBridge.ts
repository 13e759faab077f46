// The bridge container's start command (infra/bridge/Containerfile: ENTRYPOINT + CMD, its ENV and
// WORKDIR), run outside a container against this repository's build: /app is the repository
// root, `node` is this Node. Only what a test machine needs differs, and nothing else: --host
// 127.0.0.1 instead of 0.0.0.0, a free --port, a temp --data-dir. Output is kept for the log scan.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepChildOutput, registerSecret } from '../../apps/bridge/src/testing/testLogs.js';
import { readFinalStage } from './containerfile.js';

export const REPO = join(import.meta.dirname, '..', '..');
export const BRIDGE_CONTAINERFILE = join(REPO, 'infra', 'bridge', 'Containerfile');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Why the built bridge cannot run here, or undefined when it can. */
export function missingBuild(): string | undefined {
  for (const file of ['apps/bridge/dist/cli/main.js', 'apps/web/dist/index.html']) {
    if (!existsSync(join(REPO, file))) return `${file} is missing: run \`npm run build\` first`;
  }
  return undefined;
}

/** Replaces the value that follows `flag` in `args`; the flag must be there. */
function replaceFlag(args: string[], flag: string, value: string): string[] {
  const at = args.indexOf(flag);
  if (at < 0 || at + 1 >= args.length) throw new Error(`the start command has no ${flag} VALUE`);
  return [...args.slice(0, at + 1), value, ...args.slice(at + 2)];
}

export interface ContainerBridge {
  child: ChildProcess;
  /** The command as run here (program first). */
  command: string[];
  /** The command as the Containerfile has it. */
  containerCommand: string[];
  port: number;
  dataDir: string;
  stdout(): string;
  /** GET `path` on the bridge's port with `host` as the Host header (as Caddy sends it). */
  get(path: string, host: string): Promise<{ status: number; body: string }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, as `podman stop` sends; waits for the exit and removes the data dir. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startContainerBridge(env: Record<string, string>): Promise<ContainerBridge> {
  const stage = await readFinalStage(BRIDGE_CONTAINERFILE);
  const [program, ...containerArgs] = stage.command;
  if (program !== 'node') throw new Error(`the bridge image should start node, not ${program}`);
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'oc-container-data-'));
  let args = replaceFlag(containerArgs, '--host', '127.0.0.1');
  args = replaceFlag(args, '--port', String(port));
  args = replaceFlag(args, '--data-dir', dataDir);
  // The secrets among the environment (the public URL and the like are printed on purpose).
  registerSecret(
    ...Object.entries(env)
      .filter(([name]) => /PASSWORD|TOKEN|SECRET|KEY/.test(name))
      .map(([, value]) => value),
  );
  const child = spawn(process.execPath, args, {
    cwd: REPO, // the image's WORKDIR (/app) holds the same layout as the repository root
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir, ...stage.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  keepChildOutput('container-bridge', child);
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => (done = true));
  // node:http, not fetch: fetch does not let a caller choose the Host header.
  const get = (path: string, host: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  return {
    child,
    command: [process.execPath, ...args],
    containerCommand: stage.command,
    port,
    dataDir,
    stdout: () => stdout,
    get,
    exited,
    stop: async () => {
      if (!done) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const exit = await exited;
      clearTimeout(timer);
      await rm(dataDir, { recursive: true, force: true });
      return exit;
    },
  };
}

/** Polls /healthz (with `host` as Host) until it answers ok; throws if the bridge exits first. */
export async function waitHealthy(bridge: ContainerBridge, host: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void bridge.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    const answer = await bridge.get('/healthz', host).catch(() => undefined);
    if (answer?.status === 200 && answer.body === 'ok') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `the bridge ${exited ? 'exited' : 'did not answer /healthz'} (stdout: ${bridge.stdout()})`,
  );
}
