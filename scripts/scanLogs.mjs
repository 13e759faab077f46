#!/usr/bin/env node
// The last step of `npm test`: reads every log the bridges of this test run wrote (the files in
// OC_TEST_LOG_DIR, see apps/bridge/src/testing/testLogs.ts) and fails when one of them holds a
// secret: any string a test registered as secret (passwords, tokens, setup codes — one JSON
// string per line of secrets.jsonl), any API token by its shape, a bearer header, a sign-in
// cookie, a password hash, or a "password" field. Prints where, never the secret itself.
//   node scripts/scanLogs.mjs DIR [--summary FILE]
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const summaryAt = args.indexOf('--summary');
const summaryFile = summaryAt >= 0 ? args.splice(summaryAt, 2)[1] : undefined;
const dir = args[0];

const SHAPES = [
  ['an API token', /oc_[A-Za-z0-9_-]{43}/],
  ['a bearer header', /Bearer\s+[A-Za-z0-9._~+/=-]{16,}/i],
  ['a sign-in cookie', /oc_session=[A-Za-z0-9_-]{20,}/],
  ['a password hash', /\$argon2id\$/],
  ['a password field', /"(?:password|new_password|current_password)"\s*:/],
];

function finish(passed, failed, lines) {
  for (const line of lines) console.log(line);
  if (summaryFile) writeFileSync(summaryFile, JSON.stringify({ passed, failed }));
  process.exit(failed === 0 ? 0 : 1);
}

if (!dir || !existsSync(dir)) {
  finish(0, 1, [
    `log scan: no log dir ${dir ?? '(none given)'}; nothing was scanned, so nothing is proven.`,
  ]);
}

const secretsFile = join(dir, 'secrets.jsonl');
const secrets = existsSync(secretsFile)
  ? [
      ...new Set(
        readFileSync(secretsFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      ),
    ]
  : [];
const logs = readdirSync(dir)
  .filter((name) => name.endsWith('.log'))
  .map((name) => join(dir, name));

const problems = [];
let bytes = 0;
for (const file of logs) {
  const text = readFileSync(file, 'utf8');
  bytes += statSync(file).size;
  secrets.forEach((secret, i) => {
    if (text.includes(secret))
      problems.push(`${file}: contains registered secret #${i + 1} (${secret.length} characters)`);
  });
  for (const [what, shape] of SHAPES) {
    const line = text.split('\n').findIndex((l) => shape.test(l));
    if (line >= 0) problems.push(`${file}:${line + 1}: contains ${what}`);
  }
}

const report = [
  `log scan: ${logs.length} log files (${Math.round(bytes / 1024)} KiB), ${secrets.length} registered secrets, ${SHAPES.length} secret shapes`,
  ...problems.map((p) => `log scan: FOUND ${p}`),
];
if (logs.length === 0) report.push('log scan: no log files were written; the scan proves nothing.');
finish(
  problems.length === 0 && logs.length > 0 ? 1 : 0,
  problems.length === 0 && logs.length > 0 ? 0 : 1,
  report,
);
