// The bridge's pino logger: JSON lines on stderr, so stdout stays free for what the CLI tells
// the person (the URL to open). OC_LOG_LEVEL overrides the level (e.g. debug, silent).
import { pino, type Logger } from 'pino';

export function createLogger(name: string, level = process.env.OC_LOG_LEVEL ?? 'info'): Logger {
  return pino({ name, level }, pino.destination({ fd: 2, sync: false }));
}

/** A logger that drops everything, for tests and embedding. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
