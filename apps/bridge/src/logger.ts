// The bridge's pino logger: JSON lines on stderr, so stdout stays free for what the CLI tells
// the person (the URL to open). OC_LOG_LEVEL overrides the level (e.g. debug, silent).
import { pino, type Logger } from 'pino';

export function createLogger(name: string, level = process.env.OC_LOG_LEVEL ?? 'info'): Logger {
  const destination = pino.destination({ fd: 2, sync: false });
  // Once nobody reads stderr (terminal closed, parent gone) log lines are dropped rather than
  // crashing the process, which may be busy stopping the desktop.
  destination.on('error', () => undefined);
  return pino({ name, level }, destination);
}

/** A logger that drops everything, for tests and embedding. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
