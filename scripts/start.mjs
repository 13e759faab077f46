#!/usr/bin/env node
// `npm start`: takes a fresh Debian/Ubuntu machine to a running Overlay Companion, saying what it
// does as it goes: numbered steps (Node, npm dependencies, desktop programs, build, start) with a
// moving progress line for the slow ones, whose own output goes to log files in .start-logs/
// (shown when a step fails). It installs npm dependencies if they are missing, the Debian
// packages the desktop needs when run as root (otherwise it prints the exact command), builds
// when the build is missing or older than the sources, then runs
//   node apps/bridge/dist/cli/main.js serve --desktop local [extra args]
// whose JSON log goes to .start-logs/bridge.log (warnings and errors also to the terminal, one
// readable line each), and ends with the bridge's banner — the viewer URL, how to sign in, how to
// connect an AI client — plus a ready-to-paste Claude Code command from the /config page's own
// module. Extra args pass through (`npm start -- --port 9000`); OC_START_SKIP_BUILD=1 uses the
// build that exists. Plain Node until the dependencies are there, since node_modules may not
// exist yet when it runs.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { relayBridgeOutput } from './start/bridgeOutput.mjs';
import { Progress, runLogged, tailOf } from './start/progress.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BRIDGE_MAIN = join(ROOT, 'apps/bridge/dist/cli/main.js');
// Touched after each successful build. tsc -b leaves unchanged outputs untouched, so the
// outputs' own times cannot say when the last build ran.
const BUILD_STAMP = join(ROOT, 'apps/bridge/dist/.start-build-stamp');
/** Where each step's own output goes (every file is *.log, so git ignores them). */
const LOG_DIR = join(ROOT, '.start-logs');
const logFile = (name) => join(LOG_DIR, `${name}.log`);
const shown = (path) => relative(process.cwd(), path) || path;
const fail = (text, code = 1) => {
  process.stderr.write(`start: ${text}\n`);
  process.exit(code);
};
const progress = new Progress(5);

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
  // The desktop's programs run in a bubblewrap sandbox (the AI types into its shell).
  { command: 'bwrap', pkg: 'bubblewrap' },
  // Recordings export as video (GET /api/recordings/:id/export.webm renders with ffmpeg).
  { command: 'ffmpeg', pkg: 'ffmpeg' },
  { file: '/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf', pkg: 'fonts-dejavu-core' },
];

function checkNode() {
  const step = progress.step('Node.js');
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    step.failed(`${process.versions.node} is too old`);
    fail(`Node ${process.versions.node} is too old; install Node 20.19 or newer (22 LTS is fine).`);
  }
  step.done(`${process.versions.node}`);
}

/** Runs a slow command as a step, its output in a log file; fails with the log's tail. */
async function runStep(step, command, args, log, env = process.env) {
  const code = await runLogged(command, args, { cwd: ROOT, env, logFile: log });
  if (code === 0) return;
  step.failed(`failed (exit code ${code})`);
  fail(
    `${command} ${args.join(' ')} failed. The end of its output (all of it in ${shown(log)}):\n${tailOf(log)}`,
  );
}

async function ensureNpmDependencies() {
  const step = progress.step('npm dependencies');
  const markers = ['typescript', 'vite', 'hono', 'ws', 'zod', 'tsx'].map((name) =>
    join(ROOT, 'node_modules', name),
  );
  if (markers.every((dir) => existsSync(dir))) return step.done('present');
  const hasLock = existsSync(join(ROOT, 'package-lock.json'));
  const args = hasLock ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
  await runStep(step, 'npm', args, logFile('npm'));
  step.done(`installed (npm ${args[0]})`);
}

function onPath(command) {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir && existsSync(join(dir, command)));
}

async function ensureDesktopPackages() {
  const step = progress.step('desktop programs (Xvnc, openbox, xterm, xdotool, …)');
  const missing = DESKTOP_NEEDS.filter((need) =>
    need.file ? !existsSync(need.file) : ![need.command].flat().some(onPath),
  ).map((need) => need.pkg);
  if (missing.length === 0) return step.done('all there');
  const line = `apt-get install -y ${missing.join(' ')}`;
  if (!onPath('apt-get')) {
    step.failed(`missing: ${missing.join(', ')}`);
    fail(
      `These programs are missing and this is not a Debian/Ubuntu machine: install the equivalents of ${missing.join(', ')}.`,
    );
  }
  if (process.getuid?.() !== 0) {
    step.failed(`missing: ${missing.join(' ')}`);
    fail(
      `The local desktop needs Debian packages that are not installed. Run:\n\n  sudo apt-get update && sudo ${line}\n\nthen npm start again.`,
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await runStep(step, 'apt-get', ['update'], logFile('apt'), env);
  await runStep(
    step,
    'apt-get',
    ['install', '-y', '--no-install-recommends', ...missing],
    logFile('apt'),
    env,
  );
  step.done(`installed ${missing.join(' ')}`);
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

async function ensureBuild() {
  const step = progress.step('build (bridge and viewer)');
  if (process.env.OC_START_SKIP_BUILD === '1') {
    if (!existsSync(BRIDGE_MAIN)) {
      step.failed('missing');
      fail(`OC_START_SKIP_BUILD=1 but ${shown(BRIDGE_MAIN)} is missing: run npm run build first.`);
    }
    return step.done('using the existing build (OC_START_SKIP_BUILD=1)');
  }
  const why = buildReason();
  if (!why) return step.done('up to date');
  const startedAt = new Date();
  await runStep(step, 'npm', ['run', 'build'], logFile('build'));
  // Stamped with the start time: a source saved during the build triggers the next one.
  writeFileSync(BUILD_STAMP, `${startedAt.toISOString()}\n`);
  utimesSync(BUILD_STAMP, startedAt, startedAt);
  // tsc writes files without the execute bit; npx overlay-companion runs this file directly.
  if (existsSync(BRIDGE_MAIN)) chmodSync(BRIDGE_MAIN, 0o755);
  step.done(`built (${why})`);
}

/** The Claude Code command for `mcpUrl`, from the module the /config page uses (via tsx). */
async function loadClientSetup() {
  try {
    const { tsImport } = await import('tsx/esm/api');
    const module = await tsImport(
      '../apps/web/src/pages/console/config/clientConfig.ts',
      import.meta.url,
    );
    return (mcpUrl) => module.claudeCodeCommand(mcpUrl);
  } catch {
    return undefined; // the banner's pointer to /config still says how
  }
}

/** The banner, with the ready-to-paste client lines and the log's place before its last line. */
function finishBanner(lines, claudeCommand) {
  const mcpUrl = lines.map((line) => /MCP endpoint: (http\S+)/.exec(line)?.[1]).find(Boolean);
  const last = lines.pop();
  if (mcpUrl !== undefined && claudeCommand !== undefined) {
    lines.push(
      '  Claude Code, ready to paste once you have a token (put it in place of <token>):',
      `    ${claudeCommand(mcpUrl)}`,
    );
  }
  lines.push(`  Log:      ${shown(logFile('bridge'))} (warnings and errors also show here)`);
  return [...lines, last];
}

function serve(extraArgs, claudeCommand) {
  const step = progress.step('starting the desktop and the bridge');
  const chosesSource = extraArgs.some((arg) => /^--(desktop|vnc|rdp)(=|$)/.test(arg));
  const args = [
    BRIDGE_MAIN,
    'serve',
    ...(chosesSource ? [] : ['--desktop', 'local']),
    ...extraArgs,
  ];
  // Its own process group: a terminal Ctrl-C reaches only us (and npm), and we forward exactly
  // one signal, so the bridge stops its desktop once instead of being hit twice and giving up.
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let ready = false;
  const output = relayBridgeOutput(child, {
    logFile: logFile('bridge'),
    onBanner: (lines) => {
      ready = true;
      step.done('ready');
      process.stdout.write('\n');
      return finishBanner(lines, claudeCommand);
    },
  });
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
  child.on('exit', (code, signal) => {
    if (!ready) {
      step.failed(`the bridge exited (${code ?? signal})`);
      const partial = output.partialBanner();
      if (partial.length > 0) process.stdout.write(`${partial.join('\n')}\n`);
      process.stderr.write(
        `start: the bridge stopped before it was ready; see the message above and ${shown(logFile('bridge'))}.\n`,
      );
    }
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

checkNode();
mkdirSync(LOG_DIR, { recursive: true, mode: 0o700 });
await ensureNpmDependencies();
await ensureDesktopPackages();
await ensureBuild();
serve(process.argv.slice(2), await loadClientSetup());
