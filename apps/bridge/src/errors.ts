// The bridge's error types. One class per layer, each message saying what the person should do
// next; the CLI prints `message` and chooses the exit code from the class.

/** A problem with how the bridge was started (flags, environment, config). CLI exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Configuration that parsed as flags but is not usable (e.g. a missing password variable). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A part the bridge depends on (gateway, desktop, guacd) could not start or be reached. */
export class StartupError extends Error {
  override name = 'StartupError';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
