#!/usr/bin/env node
// `npm test`: the whole suite in one command — type check, lint and format check, build,
// unit and integration tests (Vitest, real Xvnc desktops), end-to-end tests (Playwright with
// Debian's Chromium), the MCP conformance suite against the built bridge, and a scan of every
// log those steps' bridges wrote for tokens and passwords. Every step runs even
// when an earlier one failed, so one run shows everything that is wrong; the last line is the
// plain "tests: N passed, N failed" summary.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const reportDir = mkdtempSync(join(tmpdir(), 'oc-test-'));
// Every log the run's bridges write, and every secret its tests make, for the final log scan.
const logDir = join(reportDir, 'logs');
mkdirSync(logDir, { recursive: true });
process.env.OC_TEST_LOG_DIR = logDir;
const results = [];
let passed = 0;
let failed = 0;

function step(name, command, args, countTests) {
  const started = Date.now();
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  const run = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  const ok = run.status === 0;
  const counts = countTests?.();
  if (counts) {
    passed += counts.passed;
    failed += counts.failed;
  } else if (!ok) {
    failed += 1; // a failing check step counts as one failed test
  }
  results.push({ name, ok, seconds: ((Date.now() - started) / 1000).toFixed(1), counts });
}

/**
 * Check steps that neither read nor write what the other writes, run side by side (the type
 * check and lint are one process each and this machine has two cores: about half a minute less
 * in CI). Each step's output is kept and printed whole, in order, once both ended.
 */
async function sideBySide(steps) {
  const runs = steps.map(({ name, command, args }) => {
    const started = Date.now();
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    return new Promise((resolve) => {
      child.on('error', (error) => {
        output.push(Buffer.from(`${String(error)}\n`));
        resolve({ name, command, args, started, ended: Date.now(), status: 1, output });
      });
      child.on('close', (status) =>
        resolve({ name, command, args, started, ended: Date.now(), status, output }),
      );
    });
  });
  for (const run of await Promise.all(runs)) {
    console.log(`\n=== ${run.name}: ${run.command} ${run.args.join(' ')}`);
    process.stdout.write(Buffer.concat(run.output));
    const ok = run.status === 0;
    if (!ok) failed += 1; // a failing check step counts as one failed test
    const seconds = ((run.ended - run.started) / 1000).toFixed(1);
    results.push({ name: run.name, ok, seconds, counts: undefined });
  }
}

/**
 * The first lines of a failure's message, indented under its name: a CI log is read from its
 * tail, where the summary is, so the cause has to be there and not only the name.
 */
function firstLines(message) {
  if (typeof message !== 'string' || message === '') return '';
  const lines = message
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .slice(0, 6);
  return lines.map((line) => `\n         ${line.slice(0, 240)}`).join('');
}

function vitestCounts(file) {
  return () => {
    if (!existsSync(file)) return { passed: 0, failed: 1 };
    const report = JSON.parse(readFileSync(file, 'utf8'));
    const names = [];
    for (const suite of report.testResults ?? []) {
      const where = relative(process.cwd(), suite.name);
      const failedTests = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
      for (const t of failedTests) {
        names.push(`${where} › ${t.fullName}${firstLines(t.failureMessages?.[0])}`);
      }
      // A file that failed outside any test (a hook, an import) has no failed test to name.
      if (suite.status === 'failed' && failedTests.length === 0) names.push(`${where} (the file)`);
    }
    return {
      passed: report.numPassedTests,
      failed: report.numFailedTests + (report.success ? 0 : report.numFailedTests === 0 ? 1 : 0),
      names,
    };
  };
}

function summaryCounts(file) {
  return () =>
    existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { passed: 0, failed: 1 };
}

function playwrightCounts(file) {
  return () => {
    if (!existsSync(file)) return { passed: 0, failed: 1 };
    const report = JSON.parse(readFileSync(file, 'utf8'));
    const names = [];
    const flaky = [];
    const walk = (suite, path) => {
      for (const spec of suite.specs ?? []) {
        for (const test of spec.tests ?? []) {
          if (test.status === 'flaky') {
            flaky.push(`${spec.file} › ${[...path, spec.title].join(' › ')} [${test.projectName}]`);
          }
          if (test.status === 'unexpected') {
            const error = test.results?.at(-1)?.error?.message;
            names.push(
              `${spec.file} › ${[...path, spec.title].join(' › ')} [${test.projectName}]${firstLines(error)}`,
            );
          }
        }
      }
      for (const child of suite.suites ?? [])
        walk(child, child.title ? [...path, child.title] : path);
    };
    for (const suite of report.suites ?? []) walk(suite, []);
    const { stats } = report;
    return { passed: stats.expected + stats.flaky, failed: stats.unexpected, names, flaky };
  };
}

const only = process.argv.slice(2);
const wanted = (name) => only.length === 0 || only.includes(name);

await sideBySide(
  [
    { name: 'typecheck', command: 'npm', args: ['run', '--silent', 'typecheck'] },
    { name: 'lint', command: 'npm', args: ['run', '--silent', 'lint'] },
  ].filter(({ name }) => wanted(name)),
);
if (wanted('build')) step('build', 'npm', ['run', '--silent', 'build']);
if (wanted('unit')) {
  const file = join(reportDir, 'vitest.json');
  step(
    'unit+integration',
    'npx',
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${file}`],
    vitestCounts(file),
  );
}
if (wanted('e2e')) {
  const file = join(reportDir, 'playwright.json');
  process.env.PLAYWRIGHT_JSON_OUTPUT_NAME = file;
  step(
    'e2e',
    'npx',
    ['playwright', 'test', '-c', 'e2e/playwright.config.ts', '--reporter=list,json'],
    playwrightCounts(file),
  );
}

if (wanted('examples')) {
  // The README's example of users' own desktop tests (@overlay-companion/testing), own config.
  const file = join(reportDir, 'examples.json');
  process.env.PLAYWRIGHT_JSON_OUTPUT_NAME = file;
  step(
    'examples',
    'npx',
    [
      'playwright',
      'test',
      '-c',
      'examples/playwright/playwright.config.ts',
      '--reporter=list,json',
    ],
    playwrightCounts(file),
  );
}

if (wanted('conformance')) {
  // Each scenario counts once: passed when its outcome is the one the reviewed baseline expects.
  const file = join(reportDir, 'conformance.json');
  step(
    'conformance',
    'node',
    ['apps/bridge/conformance/run.mjs', '--summary', file],
    summaryCounts(file),
  );
}

if (wanted('log-scan')) {
  // Last: it reads what every step before it logged.
  const file = join(reportDir, 'log-scan.json');
  step(
    'log-scan',
    'node',
    ['scripts/scanLogs.mjs', logDir, '--summary', file],
    summaryCounts(file),
  );
}

console.log('\n=== summary');
for (const r of results) {
  const counts = r.counts ? ` (${r.counts.passed} passed, ${r.counts.failed} failed)` : '';
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} ${r.seconds}s${counts}`);
  // The failed tests by name here at the end, where a CI log's tail is read.
  for (const name of r.counts?.names ?? []) console.log(`       failed: ${name}`);
  for (const name of r.counts?.flaky ?? []) console.log(`       passed on retry: ${name}`);
}
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
