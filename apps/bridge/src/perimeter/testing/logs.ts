// Security test support: a pino logger at the most verbose level writing into memory, so a test
// can hand it to the bridge and then read every line the bridge would have written to its log
// file — what a local process that can read the logs would see.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface MemoryLog {
  logger: Logger;
  /** Everything written so far, one JSON line per entry. */
  text(): string;
}

export function memoryLogger(): MemoryLog {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, sink), text: () => chunks.join('') };
}
