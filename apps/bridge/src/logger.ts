// The bridge's pino logger: JSON lines on stderr, so stdout stays free for what the CLI tells
// the person (the URL to open). The level comes from `--log-level`, else OC_LOG_LEVEL, else
// info. Secrets never reach a line even when a caller logs a whole object by mistake: pino's
// `redact` replaces authorization headers, cookies, tokens, passwords and secrets (at the top
// level and one or two levels down, e.g. `req.headers.authorization`) with "[Redacted]".
import { pino, type Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Keys whose values are secrets wherever they appear in a logged object. */
const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'cookie',
  'Cookie',
  'set-cookie',
  'token',
  'secret',
  'password',
  'passwordHash',
  'cookieValue',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'idToken',
  'id_token',
  'clientSecret',
  'client_secret',
  'joinSecret',
  'setupCode',
  'code_verifier',
];

/** pino redact paths: each secret key at the top level, one and two levels down. */
export const REDACT_PATHS: readonly string[] = SECRET_KEYS.flatMap((key) => {
  const at = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const child = at.startsWith('[') ? at : `.${at}`;
  return [at, `*${child}`, `*.*${child}`];
});

export const REDACTED = '[Redacted]';

/** A log level from a flag or OC_LOG_LEVEL, or a message naming the valid ones. */
export function parseLogLevel(text: string, source: string): LogLevel {
  const level = text.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  throw new Error(`${source} expects one of ${LOG_LEVELS.join(', ')}, got "${text}".`);
}

/** pino options every bridge logger shares (name, level, redaction). */
export function loggerOptions(name: string, level: string): pino.LoggerOptions {
  return { name, level, redact: { paths: [...REDACT_PATHS], censor: REDACTED } };
}

export function createLogger(name: string, level?: LogLevel): Logger {
  const chosen =
    level ??
    (process.env.OC_LOG_LEVEL === undefined || process.env.OC_LOG_LEVEL.trim() === ''
      ? 'info'
      : parseLogLevel(process.env.OC_LOG_LEVEL, 'OC_LOG_LEVEL'));
  const destination = pino.destination({ fd: 2, sync: false });
  // Once nobody reads stderr (terminal closed, parent gone) log lines are dropped rather than
  // crashing the process, which may be busy stopping the desktop.
  destination.on('error', () => undefined);
  return pino(loggerOptions(name, chosen), destination);
}

/** A logger that drops everything, for tests and embedding. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
