#!/usr/bin/env node
// Runs the MCP conformance suite (@modelcontextprotocol/conformance, on Node 22 through npx)
// against the built bridge: starts `overlay-companion serve --no-auth --port 0` (a real local
// desktop, a free loopback port, a throwaway data dir), runs `conformance server` with the
// reviewed baseline.yml, stops the bridge and exits with the suite's code (0: only baseline
// failures; 1: a new failure or a stale baseline entry).
//   node apps/bridge/conformance/run.mjs [--summary FILE] [extra `conformance server` args]
// --summary writes {"passed": n, "failed": n} per scenario (matched/unmatched expectation) for
// scripts/test.mjs's summary line.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, '../../..');
const MAIN = join(REPO, 'apps/bridge/dist/cli/main.js');
const BASELINE = join(HERE, 'baseline.yml');
const SUITE = ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/conformance@0.1.16'];

const args = process.argv.slice(2);
let summaryFile;
const summaryAt = args.indexOf('--summary');
if (summaryAt >= 0) [, summaryFile] = args.splice(summaryAt, 2);

function fail(message) {
  console.error(`conformance: ${message}`);
  if (summaryFile) writeFileSync(summaryFile, JSON.stringify({ passed: 0, failed: 1 }));
  process.exit(1);
}

if (!existsSync(MAIN)) fail(`the bridge is not built (${MAIN}); run \`npm run build\` first.`);

const work = mkdtempSync(join(tmpdir(), 'oc-conformance-'));
const results = join(work, 'results');
const bridge = spawn(
  process.execPath,
  [MAIN, 'serve', '--no-auth', '--port', '0', '--data-dir', join(work, 'data')],
  {
    cwd: REPO,
    env: { ...process.env, OC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const bridgeExited = new Promise((resolve) => bridge.once('exit', resolve));

async function stopBridge() {
  if (bridge.exitCode !== null || bridge.signalCode !== null) return;
  bridge.kill('SIGINT');
  const timer = setTimeout(() => bridge.kill('SIGKILL'), 15_000);
  await bridgeExited;
  clearTimeout(timer);
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => void stopBridge().finally(() => process.exit(130)));
}

/** The MCP endpoint the bridge prints once it listens. */
const mcpUrl = await new Promise((resolve, reject) => {
  let out = '';
  const timer = setTimeout(
    () => reject(new Error(`no MCP endpoint line within 60 s:\n${out}`)),
    60_000,
  );
  bridge.stdout.on('data', (chunk) => {
    out += chunk.toString();
    const match = /MCP endpoint: (http:\/\/\S+)/.exec(out);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
  void bridgeExited.then(() => reject(new Error(`the bridge exited before listening:\n${out}`)));
}).catch(async (err) => {
  await stopBridge();
  fail(err.message);
});
bridge.stdout.resume();

console.log(`conformance: bridge at ${mcpUrl}`);
const suite = spawn(
  'npx',
  [
    ...SUITE,
    'conformance',
    'server',
    '--url',
    mcpUrl,
    '--expected-failures',
    BASELINE,
    '-o',
    results,
    ...args,
  ],
  { cwd: work, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } },
);
const code = await new Promise((resolve) => suite.once('exit', (c) => resolve(c ?? 1)));
await stopBridge();

if (summaryFile) writeFileSync(summaryFile, JSON.stringify(summarize()));
rmSync(work, { recursive: true, force: true });
process.exit(code);

/** Per scenario: passed = the outcome the baseline expects (pass, or a listed failure). */
function summarize() {
  const expected = new Set(parseYaml(readFileSync(BASELINE, 'utf8'))?.server ?? []);
  let passed = 0;
  let failed = 0;
  for (const dir of existsSync(results) ? readdirSync(results) : []) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(dir)?.[1];
    const file = join(results, dir, 'checks.json');
    if (scenario === undefined || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, 'utf8'));
    const ok = checks.every((c) => c.status !== 'FAILURE');
    if (ok !== expected.has(scenario)) passed += 1;
    else failed += 1;
  }
  if (code !== 0 && failed === 0) failed = 1; // the suite failed in a way no scenario shows
  return { passed, failed };
}
