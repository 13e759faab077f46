#!/usr/bin/env node
// Runs the MCP conformance suite (@modelcontextprotocol/conformance, on Node 22 through npx)
// against the built bridge: starts `overlay-companion serve --port 0` (a real local desktop, a
// free loopback port, a throwaway data dir) scripted with OC_ADMIN_USER / OC_ADMIN_PASSWORD and a
// random OC_MCP_TOKEN, runs `conformance server` with the reviewed baseline.yml, stops the
// bridge and exits with the suite's code (0: only baseline failures; 1: a new failure or a
// stale baseline entry).
//
// `conformance server --url` cannot send an Authorization header, so the suite talks to a TEST
// HARNESS FORWARDER on another loopback port (see startAuthForwarder below) that adds
// `Authorization: Bearer <the token>` and passes everything else through unchanged.
//   node apps/bridge/conformance/run.mjs [--summary FILE] [extra `conformance server` args]
// --summary writes {"passed": n, "failed": n} per scenario (matched/unmatched expectation) for
// scripts/test.mjs's summary line.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
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
// A scripted setup: the admin, and a token that acts for them. Random per run, never printed.
const token = `conformance-${randomBytes(24).toString('base64url')}`;
const adminPassword = randomBytes(18).toString('base64url');

/**
 * npm test's log scan (scripts/scanLogs.mjs) reads every log a bridge of the run wrote: keep this
 * bridge's output in OC_TEST_LOG_DIR, with the secrets it was given.
 */
function keepForLogScan(child, secrets) {
  const dir = process.env.OC_TEST_LOG_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const file = createWriteStream(join(dir, `conformance-bridge-${process.pid}.log`));
  child.stdout.on('data', (chunk) => file.write(chunk));
  child.stderr.on('data', (chunk) => file.write(chunk));
  child.once('exit', () => file.end());
  appendFileSync(join(dir, 'secrets.jsonl'), secrets.map((v) => `${JSON.stringify(v)}\n`).join(''));
}

const bridge = spawn(
  process.execPath,
  [MAIN, 'serve', '--port', '0', '--data-dir', join(work, 'data')],
  {
    cwd: REPO,
    env: {
      ...process.env,
      OC_LOG_LEVEL: 'warn',
      OC_ADMIN_USER: 'conformance',
      OC_ADMIN_PASSWORD: adminPassword,
      OC_MCP_TOKEN: token,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
bridge.stderr.pipe(process.stderr);
keepForLogScan(bridge, [adminPassword, token]);
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

const forwarder = await startAuthForwarder(new URL(mcpUrl), token).catch(async (err) => {
  await stopBridge();
  fail(`the test forwarder could not start: ${err.message}`);
});
const suiteUrl = new URL(new URL(mcpUrl).pathname, forwarder.url).toString();
console.log(
  `conformance: bridge at ${mcpUrl}, suite sent through the test forwarder at ${suiteUrl}`,
);
const suite = spawn(
  'npx',
  [
    ...SUITE,
    'conformance',
    'server',
    '--url',
    suiteUrl,
    '--expected-failures',
    BASELINE,
    '-o',
    results,
    ...args,
  ],
  { cwd: work, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0' } },
);
const code = await new Promise((resolve) => suite.once('exit', (c) => resolve(c ?? 1)));
await forwarder.close();
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

/**
 * TEST HARNESS FORWARDER, not part of the product: a loopback HTTP forwarder in front of the
 * bridge, because `conformance server --url` cannot send an Authorization header. It adds
 * `Authorization: Bearer <token>` to requests that carry none and otherwise behaves like a
 * plain port forward: method, path, body and every other header pass through; responses
 * (SSE streams included) are streamed back as they come. A Host or Origin naming the
 * forwarder's own address is rewritten to the bridge's address (what the client would have sent
 * had it reached the bridge directly); any other Host or Origin — the DNS-rebinding scenario's
 * evil.example.com — reaches the bridge untouched, so its guard is what the suite tests.
 */
function startAuthForwarder(target, bearer) {
  const server = createServer((req, res) => {
    const own = `127.0.0.1:${server.address().port}`;
    const ownLocal = `localhost:${server.address().port}`;
    const headers = { ...req.headers };
    const translate = (value) =>
      value.replace(own, target.host).replace(ownLocal, `localhost:${target.port}`);
    if (typeof headers.host === 'string') headers.host = translate(headers.host);
    if (typeof headers.origin === 'string') headers.origin = translate(headers.origin);
    headers.authorization ??= `Bearer ${bearer}`;
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`test forwarder: ${err.message}`);
    });
    // The client going away ends the upstream request too (e.g. a closed SSE stream).
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    );
  });
}
