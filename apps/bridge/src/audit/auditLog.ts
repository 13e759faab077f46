// The audit log as the rest of the bridge writes it: one entry per tool call (who — person,
// token, MCP client —, the tool, an argument summary, the policy's decision, who approved, the
// outcome and how long it took), and entries for mode changes, approvals, Stop, sign-ins and
// account changes. Writes never hold up the caller or fail it: entries are queued and written
// behind, everything that arrived meanwhile in one statement (on PostgreSQL one commit per burst
// instead of one per call); a batch that cannot be stored is logged (without its content) and
// dropped. Also runs the retention purge.
import { DEFAULT_AUDIT_RETENTION_DAYS } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { NewAuditEntry, Store } from '../store/types.js';

/** Settings key of the retention (days), shared with the settings API. */
export const AUDIT_RETENTION_KEY = 'audit_retention_days';
const PURGE_EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export type AuditInput = Omit<NewAuditEntry, 'at'> & { at?: number };

/** Entries per INSERT (17 columns each stays far below SQLite's bound-parameter limit). */
const MAX_BATCH = 200;

export class AuditLog {
  private purgeTimer: NodeJS.Timeout | undefined;
  private queue: NewAuditEntry[] = [];
  private draining: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Queues an entry; it is written in the background with whatever else arrives meanwhile. */
  record(entry: AuditInput): void {
    this.queue.push({ ...entry, at: entry.at ?? this.now() });
    this.draining ??= this.drain();
  }

  /** Waits for every entry recorded so far (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  private async drain(): Promise<void> {
    // Let the rest of this turn of the event loop queue what it records, then write it together.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.store.audit.appendMany(batch);
      } catch (err) {
        this.logger.error(
          { err: err instanceof Error ? err.message : String(err), entries: batch.length },
          'audit entries could not be stored',
        );
      }
    }
    this.draining = undefined;
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
