// The bridge's log lines: secrets redacted wherever a caller put them, and the level chosen by
// --log-level (over OC_LOG_LEVEL), with a usage error naming the valid levels.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './cli/args.js';
import { REDACTED, loggerOptions, parseLogLevel } from './logger.js';

function capture(level = 'debug'): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const logger = pino(loggerOptions('test', level), {
    write: (line: string) => written.push(line),
  });
  return {
    logger,
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('logger', () => {
  it('redacts authorization headers, cookies, tokens and passwords at any usual depth', () => {
    const { logger, lines } = capture();
    const secrets = ['Bearer oc_secret-token', 'oc_session=abc', 'tok-123456', 'hunter2-password'];
    logger.info(
      {
        req: { headers: { authorization: secrets[0], cookie: secrets[1], 'set-cookie': 'x' } },
        token: secrets[2],
        admin: { password: secrets[3] },
        oidc: { client_secret: 's3cret', code_verifier: 'pkce-value-xyz' },
        tokenId: 'tok_kept',
      },
      'request',
    );
    const [line] = lines();
    const text = JSON.stringify(line);
    for (const secret of [...secrets, 's3cret', 'pkce-value-xyz'])
      expect(text).not.toContain(secret);
    expect(line).toMatchObject({
      req: { headers: { authorization: REDACTED, cookie: REDACTED, 'set-cookie': REDACTED } },
      token: REDACTED,
      admin: { password: REDACTED },
      // Ids that name a token without being one stay readable.
      tokenId: 'tok_kept',
    });
  });

  it('parses levels and says which exist', () => {
    expect(parseLogLevel(' Debug ', '--log-level')).toBe('debug');
    expect(() => parseLogLevel('loud', '--log-level')).toThrow(
      '--log-level expects one of fatal, error, warn, info, debug, trace, silent, got "loud".',
    );
  });

  it('takes --log-level over OC_LOG_LEVEL for serve and gateway', () => {
    const serve = parseCommandLine(['serve', '--log-level', 'warn'], { OC_LOG_LEVEL: 'debug' });
    expect(serve).toMatchObject({ command: 'serve', options: { logLevel: 'warn' } });
    const fromEnv = parseCommandLine(['serve'], { OC_LOG_LEVEL: 'error' });
    expect(fromEnv).toMatchObject({ options: { logLevel: 'error' } });
    expect(parseCommandLine(['serve'], {})).not.toHaveProperty('options.logLevel');
    expect(parseCommandLine(['gateway', '--log-level', 'trace'], {})).toMatchObject({
      options: { logLevel: 'trace' },
    });
    expect(() => parseCommandLine(['serve', '--log-level', 'chatty'], {})).toThrow(
      /--log-level expects one of/,
    );
    expect(() => parseCommandLine(['serve'], { OC_METRICS_TOKEN: 'short' })).toThrow(
      /OC_METRICS_TOKEN is too short/,
    );
  });
});
