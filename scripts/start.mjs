#!/usr/bin/env node
// `npm start`: takes a fresh Debian/Ubuntu machine to a running Overlay Companion. Installs npm
// dependencies if they are missing, checks for the desktop programs (installing the Debian
// packages when run as root, otherwise printing the exact command), builds when the build is
// missing or older than the sources, then runs
//   node apps/bridge/dist/cli/main.js serve --desktop local [extra args]
// Extra args pass through (`npm start -- --port 9000`). Plain Node with no dependencies, because
// node_modules may not exist yet when it runs.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BRIDGE_MAIN = join(ROOT, 'apps/bridge/dist/cli/main.js');
// Touched after each successful build. tsc -b leaves unchanged outputs untouched, so the
// outputs' own times cannot say when the last build ran.
const BUILD_STAMP = join(ROOT, 'apps/bridge/dist/.start-build-stamp');
const say = (text) => process.stdout.write(`start: ${text}\n`);
const fail = (text, code = 1) => {
  process.stderr.write(`start: ${text}\n`);
  process.exit(code);
};

// What the local desktop needs, as "how to tell it is there" → Debian package.
const DESKTOP_NEEDS = [
  { command: 'Xvnc', pkg: 'tigervnc-standalone-server' },
  { command: ['tigervncpasswd', 'vncpasswd'], pkg: 'tigervnc-tools' },
  { command: 'xauth', pkg: 'xauth' },
  { command: 'xterm', pkg: 'xterm' },
  { command: 'openbox', pkg: 'openbox' },
  { command: 'xdpyinfo', pkg: 'x11-utils' },
  { command: 'xdotool', pkg: 'xdotool' },
  { command: 'xclip', pkg: 'xclip' },
  { file: '/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf', pkg: 'fonts-dejavu-core' },
];

function checkNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    fail(`Node ${process.versions.node} is too old; install Node 20.19 or newer (22 LTS is fine).`);
  }
}

function run(command, args, what) {
  say(`${what}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: process.env });
  if (result.error) fail(`${what} failed to start: ${result.error.message}`);
  if (result.status !== 0)
    fail(`${what} failed (exit code ${result.status ?? result.signal}). See the output above.`);
}

function ensureNpmDependencies() {
  const markers = ['typescript', 'vite', 'hono', 'ws', 'zod'].map((name) =>
    join(ROOT, 'node_modules', name),
  );
  if (markers.every((dir) => existsSync(dir))) return;
  const hasLock = existsSync(join(ROOT, 'package-lock.json'));
  run(
    'npm',
    hasLock ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'],
    'installing npm dependencies',
  );
}

function onPath(command) {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir && existsSync(join(dir, command)));
}

function ensureDesktopPackages() {
  const missing = DESKTOP_NEEDS.filter((need) =>
    need.file ? !existsSync(need.file) : ![need.command].flat().some(onPath),
  ).map((need) => need.pkg);
  if (missing.length === 0) return;
  const line = `apt-get install -y ${missing.join(' ')}`;
  if (!onPath('apt-get')) {
    fail(
      `These programs are missing and this is not a Debian/Ubuntu machine: install the equivalents of ${missing.join(', ')}.`,
    );
  }
  if (process.getuid?.() !== 0) {
    fail(
      `The local desktop needs Debian packages that are not installed. Run:\n\n  sudo apt-get update && sudo ${line}\n\nthen npm start again.`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...missing]]) {
    say(`installing desktop packages: apt-get ${args.join(' ')}`);
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (result.status !== 0) fail(`apt-get ${args[0]} failed. Try it yourself: ${line}`);
  }
}

/** Newest modification time under `path` (files only), skipping build output and dependencies. */
function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

function buildReason() {
  const outputs = [
    BRIDGE_MAIN,
    ...['index.html', 'console.html', 'signin.html'].map((page) =>
      join(ROOT, 'apps/web/dist', page),
    ),
    ...['guac', 'protocol', 'gateway'].map((pkg) => join(ROOT, 'packages', pkg, 'dist/index.js')),
  ];
  const missing = outputs.find((file) => !existsSync(file));
  if (missing) return `${missing.slice(ROOT.length + 1)} is missing`;
  if (!existsSync(BUILD_STAMP)) return 'it was not built by npm start yet';
  const lastBuild = statSync(BUILD_STAMP).mtimeMs;
  const sources = [
    'packages',
    'apps/bridge/src',
    'apps/web/src',
    'apps/web/index.html',
    'apps/web/console.html',
    'apps/web/signin.html',
    'public',
    'package.json',
    'tsconfig.base.json',
    'vite.config.ts',
  ].map((path) => join(ROOT, path));
  const newestSource = Math.max(...sources.map(newestMtime));
  return newestSource > lastBuild ? 'the sources changed since the last build' : undefined;
}

function ensureBuild() {
  const why = buildReason();
  if (!why) return;
  const startedAt = new Date();
  run('npm', ['run', 'build'], `building (${why})`);
  // Stamped with the start time: a source saved during the build triggers the next one.
  writeFileSync(BUILD_STAMP, `${startedAt.toISOString()}\n`);
  utimesSync(BUILD_STAMP, startedAt, startedAt);
  // tsc writes files without the execute bit; npx overlay-companion runs this file directly.
  if (existsSync(BRIDGE_MAIN)) chmodSync(BRIDGE_MAIN, 0o755);
}

function serve(extraArgs) {
  const chosesSource = extraArgs.some((arg) => /^--(desktop|vnc|rdp)(=|$)/.test(arg));
  const args = [
    BRIDGE_MAIN,
    'serve',
    ...(chosesSource ? [] : ['--desktop', 'local']),
    ...extraArgs,
  ];
  // Its own process group: a terminal Ctrl-C reaches only us (and npm), and we forward exactly
  // one signal, so the bridge stops its desktop once instead of being hit twice and giving up.
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit', detached: true });
  let lastForward = 0;
  const forward = (signal) => {
    // npm forwards the terminal's SIGINT too: a duplicate within a second is the same Ctrl-C.
    if (Date.now() - lastForward < 1000) return;
    lastForward = Date.now();
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => forward('SIGINT'));
  process.on('SIGTERM', () => forward('SIGTERM'));
  process.on('exit', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  child.on('error', (err) => fail(`could not run the bridge: ${err.message}`));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

checkNode();
ensureNpmDependencies();
ensureDesktopPackages();
ensureBuild();
serve(process.argv.slice(2));
