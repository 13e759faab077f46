#!/usr/bin/env node
// `npm run dev`: the bridge from source (tsx with the `overlay-source` condition, so every
// workspace package is used as TypeScript without a build) and the Vite dev server for the
// viewer, together. Vite proxies /tunnel, /ws, /api and /mcp to the bridge (vite.config.ts reads
// OC_BRIDGE_URL). Extra args go to `overlay-companion serve` (`npm run dev -- --vnc HOST:PORT`).
// Ctrl-C stops both; if either exits, the other is stopped too. The bridge is not restarted on
// file changes: a restart would also restart the desktop and drop the session.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const extraArgs = process.argv.slice(2);

if (!existsSync(join(ROOT, 'node_modules/tsx')) || !existsSync(join(ROOT, 'node_modules/vite'))) {
  process.stderr.write(
    'dev: npm dependencies are missing; run `npm ci` (or `npm start` once) first.\n',
  );
  process.exit(1);
}

// The bridge's port: what the person passed, else a fixed default Vite can be pointed at.
const portIndex = extraArgs.findIndex((arg) => arg === '--port' || arg.startsWith('--port='));
const portArg =
  portIndex < 0
    ? undefined
    : extraArgs[portIndex].includes('=')
      ? extraArgs[portIndex].split('=')[1]
      : extraArgs[portIndex + 1];
const bridgePort = portArg ?? '8080';
if (bridgePort === '0') {
  process.stderr.write('dev: --port 0 cannot be used with the Vite proxy; pick a fixed port.\n');
  process.exit(2);
}
const host = '127.0.0.1';
const bridgeArgs = [
  '--import',
  'tsx',
  '--conditions=overlay-source',
  join(ROOT, 'apps/bridge/src/cli/main.ts'),
  'serve',
  ...(extraArgs.some((arg) => /^--(desktop|vnc|rdp)(=|$)/.test(arg)) ? [] : ['--desktop', 'local']),
  ...(portIndex < 0 ? ['--port', bridgePort] : []),
  ...extraArgs,
];

const children = [];
let exiting = false;

function start(name, command, args, env = {}) {
  // Own process groups: one Ctrl-C is forwarded once to each, so the bridge stops its desktop
  // cleanly instead of receiving the terminal's signal and ours.
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: 'inherit',
    detached: true,
    env: { ...process.env, ...env },
  });
  children.push(child);
  child.on('error', (err) => {
    process.stderr.write(`dev: ${name} could not start: ${err.message}\n`);
    stopAll(1);
  });
  child.on('exit', (code, signal) => {
    if (!exiting)
      process.stderr.write(`dev: ${name} exited (${signal ?? code}); stopping the rest.\n`);
    stopAll(code ?? 0);
  });
  return child;
}

let exitCode = 0;
function stopAll(code) {
  exitCode = exitCode || code;
  if (!exiting) {
    exiting = true;
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  }
  if (children.every((child) => child.exitCode !== null || child.signalCode !== null))
    process.exit(exitCode);
}

start('bridge', process.execPath, bridgeArgs);
start('vite', process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), '--host', host], {
  OC_BRIDGE_URL: `http://${host}:${bridgePort}`,
});

let lastSignal = 0;
const onSignal = () => {
  // npm forwards the terminal's Ctrl-C as well: one press, one stop.
  if (Date.now() - lastSignal < 1000) return;
  lastSignal = Date.now();
  stopAll(0);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
process.on('exit', () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});
