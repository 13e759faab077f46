// Warnings about messages dropped on the site's bus because their seal or schema failed, bounded:
// anyone holding the NATS credentials (not the site's key) can send such messages as fast as NATS
// carries them, and a warning line for each would fill the disk the logs are on. The first
// DROP_WARNINGS_PER_MINUTE of each minute are said one by one, with why (never the content);
// the rest are counted and said in one line when that minute is over.
import type { Logger } from 'pino';

export const DROP_WARNINGS_PER_MINUTE = 20;
const MINUTE_MS = 60_000;

export class DropWarnings {
  private minuteStart = 0;
  private said = 0;
  private unsaid = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly logger: Logger) {}

  /** A message was dropped: `fields` and `message` say which and why. */
  warn(fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if (now - this.minuteStart >= MINUTE_MS) {
      this.sayUnsaid();
      this.minuteStart = now;
      this.said = 0;
    }
    if (this.said < DROP_WARNINGS_PER_MINUTE) {
      this.said += 1;
      this.logger.warn(fields, message);
      return;
    }
    this.unsaid += 1;
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.sayUnsaid(), this.minuteStart + MINUTE_MS - now);
    this.timer.unref();
  }

  /** Says what was counted and not said (the bridge is leaving the site). */
  close(): void {
    this.sayUnsaid();
  }

  private sayUnsaid(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.unsaid === 0) return;
    this.logger.warn(
      { dropped: this.unsaid, perMinute: DROP_WARNINGS_PER_MINUTE },
      'site: dropped more messages that failed their seal or schema than are said one by one (someone holding the NATS credentials but not the site’s key may be sending them)',
    );
    this.unsaid = 0;
  }
}
