// The first-run setup code: while no admin exists, `serve` prints a link with a single-use code
// (valid until used or until the bridge restarts) that opens /setup, where the person creates
// the admin account. The code is compared in constant time and forgotten once used.
import { randomSecret, secretsEqual } from './secrets.js';

export class SetupCode {
  private code: string | undefined;

  /** Mints the code (once per start); the caller prints the link. */
  issue(): string {
    this.code ??= randomSecret(18);
    return this.code;
  }

  get pending(): boolean {
    return this.code !== undefined;
  }

  /** True once for the right code; the code is then gone. */
  consume(presented: string): boolean {
    const code = this.code;
    if (code === undefined || !secretsEqual(presented, code)) return false;
    this.code = undefined;
    return true;
  }
}
