// Test support for the log scan (`npm test`'s last step, scripts/scanLogs.mjs): every log the
// bridges of a test run write — in-process bridges through testLogger(), CLI processes through
// keepChildOutput() — lands in OC_TEST_LOG_DIR, at debug level so the scan sees as much as can
// be logged; and every secret a test makes (passwords, tokens, setup codes) is registered with
// registerSecret() so the scan can prove none of them was written anywhere. Without
// OC_TEST_LOG_DIR (a single test file run by hand) loggers are silent and nothing is kept.
import { appendFileSync, createWriteStream, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pino, type Logger } from 'pino';

function logDir(): string | undefined {
  const dir = process.env.OC_TEST_LOG_DIR;
  if (dir === undefined || dir === '') return undefined;
  mkdirSync(dir, { recursive: true });
  return dir;
}

function fileName(name: string): string {
  return `${name.replace(/[^A-Za-z0-9_-]/g, '-')}-${process.pid}-${randomBytes(4).toString('hex')}.log`;
}

/** A logger for an in-process bridge: debug lines into the run's log dir, or silent. */
export function testLogger(name: string): Logger {
  const dir = logDir();
  if (dir === undefined) return pino({ level: 'silent' });
  return pino(
    { name, level: 'debug' },
    pino.destination({ dest: join(dir, fileName(name)), sync: true }),
  );
}

/** Copies a child process's stdout and stderr into the run's log dir (kept for the scan). */
export function keepChildOutput(
  name: string,
  streams: { stdout?: Readable | null; stderr?: Readable | null },
): void {
  const dir = logDir();
  if (dir === undefined) return;
  const file = createWriteStream(join(dir, fileName(name)));
  let open = 2;
  const done = (): void => {
    open -= 1;
    if (open === 0) file.end();
  };
  for (const stream of [streams.stdout, streams.stderr]) {
    if (stream === null || stream === undefined) {
      done();
      continue;
    }
    stream.on('data', (chunk: Buffer) => file.write(chunk));
    stream.once('close', done);
  }
}

/** Records secrets a test made, one per line, for the scan (no-op without a log dir). */
export function registerSecret(...values: string[]): void {
  const dir = logDir();
  if (dir === undefined) return;
  const lines = values.filter((v) => v.length >= 8).map((v) => `${JSON.stringify(v)}\n`);
  if (lines.length > 0) appendFileSync(join(dir, 'secrets.jsonl'), lines.join(''));
}
