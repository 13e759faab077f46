// The audit log as the rest of the bridge writes it: one entry per tool call (who — person,
// token, MCP client —, the tool, an argument summary, the policy's decision, who approved, the
// outcome and how long it took), and entries for mode changes, approvals, Stop, sign-ins and
// account changes. Writes never hold up the caller or fail it: an entry that cannot be stored
// is logged (without its content) and dropped. Also runs the retention purge.
import { DEFAULT_AUDIT_RETENTION_DAYS } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { NewAuditEntry, Store } from '../store/types.js';

/** Settings key of the retention (days), shared with the settings API. */
export const AUDIT_RETENTION_KEY = 'audit_retention_days';
const PURGE_EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export type AuditInput = Omit<NewAuditEntry, 'at'> & { at?: number };

export class AuditLog {
  private purgeTimer: NodeJS.Timeout | undefined;
  private pending = new Set<Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Appends an entry in the background. */
  record(entry: AuditInput): void {
    const write = this.store.audit
      .append({ ...entry, at: entry.at ?? this.now() })
      .catch((err: unknown) => {
        this.logger.error(
          { err: err instanceof Error ? err.message : String(err), kind: entry.kind },
          'audit entry could not be stored',
        );
      });
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
  }

  /** Waits for every entry recorded so far (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  async retentionDays(): Promise<number> {
    const value = await this.store.settings.get(AUDIT_RETENTION_KEY);
    return typeof value === 'number' && Number.isInteger(value) && value > 0
      ? value
      : DEFAULT_AUDIT_RETENTION_DAYS;
  }

  /** Deletes entries older than the retention; returns how many. */
  async purge(): Promise<number> {
    const days = await this.retentionDays();
    return this.store.audit.purgeBefore(this.now() - days * DAY_MS);
  }

  /** Purges now and then every hour, until stop(). */
  startRetention(): void {
    const run = (): void => {
      this.purge().then(
        (removed) => {
          if (removed > 0) this.logger.info({ removed }, 'old audit entries deleted');
        },
        (err: unknown) => this.logger.warn({ err }, 'audit retention purge failed'),
      );
    };
    run();
    this.purgeTimer = setInterval(run, PURGE_EVERY_MS);
    this.purgeTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.purgeTimer);
    await this.flush();
  }
}
