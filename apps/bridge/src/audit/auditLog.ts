// The audit log as the rest of the bridge writes it: one entry per tool call (who — person,
// token, MCP client —, the tool, an argument summary, the policy's decision, who approved, the
// outcome and how long it took), and entries for mode changes, approvals, Stop, sign-ins and
// account changes. Writes never hold up the caller or fail it: entries are queued and written
// behind (auditQueue.ts: in order, retried through an outage, never dropped; while too many wait,
// refusal() holds desktop input back). Also runs the retention purge.
import { DEFAULT_AUDIT_RETENTION_DAYS } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ProtocolError } from '@overlay-companion/protocol';
import type { NewAuditEntry, Store } from '../store/types.js';
import type { Decider } from './decider.js';
import {
  AuditQueue,
  DEFAULT_AUDIT_QUEUE,
  type AuditQueueLimits,
  type AuditQueueState,
} from './auditQueue.js';

/** Settings key of the retention (days), shared with the settings API. */
export const AUDIT_RETENTION_KEY = 'audit_retention_days';
const PURGE_EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a read of the log waits for entries still being written (an INSERT takes ~1 ms). */
const READ_WAIT_MS = 500;

export type AuditInput = Omit<NewAuditEntry, 'at'> & {
  at?: number;
  /** The desktop the entry is about, for taps (not stored: the entry's detail names it). */
  desktopId?: string | undefined;
  /** The AI's stated intent, for taps (stored inside the detail line). */
  intent?: string | undefined;
};

/** Sees every entry as it is recorded (the session recording's event track). */
export type AuditTap = (
  entry: NewAuditEntry,
  about: { desktopId: string | undefined; intent: string | undefined },
) => void;

export class AuditLog {
  private purgeTimer: NodeJS.Timeout | undefined;
  private readonly queue: AuditQueue;
  private readonly taps = new Set<AuditTap>();
  /** Entries of recordNaming() whose person's name is still being read. */
  private readonly naming = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    limits: AuditQueueLimits = DEFAULT_AUDIT_QUEUE,
  ) {
    this.queue = new AuditQueue(store, logger, now, limits);
  }

  /** Queues an entry; it is written in the background with whatever else arrives meanwhile. */
  record(entry: AuditInput): void {
    const { desktopId, intent, ...stored } = entry;
    const queued: NewAuditEntry = { ...stored, at: entry.at ?? this.now() };
    this.queue.push(queued);
    for (const tap of this.taps) {
      try {
        tap(queued, { desktopId, intent });
      } catch (err) {
        this.logger.warn({ err }, 'an audit tap failed');
      }
    }
  }

  /** Calls `tap` with every entry recorded from now on; returns how to stop. */
  tap(tap: AuditTap): () => void {
    this.taps.add(tap);
    return () => this.taps.delete(tap);
  }

  /** Why a tool call must wait until the audit can be written again, or undefined. */
  refusal(isInput: boolean): ProtocolError | undefined {
    return this.queue.refusal(isInput);
  }

  /** Whether entries are being written, for readiness and metrics. */
  state(): AuditQueueState {
    return this.queue.state();
  }

  /**
   * A person's display name as the audit names them (one definition): as the people table has it
   * now — in a site, the table every bridge shares, so a person whose windows are all on another
   * bridge is named too; null for someone no longer there.
   */
  async displayName(personId: string): Promise<string | null> {
    return (await this.store.people.byId(personId))?.displayName ?? null;
  }

  /**
   * Queues an entry that names a person by their display name as it is now, once `name` is read
   * — stamped with the time of this call, not of the read, and waited for by flush(), so an
   * entry recorded before a read of the log or a shutdown is never missed by it. `named` puts
   * the name in (the entry's person by default); a name that cannot be read leaves the entry as
   * it is.
   */
  recordNaming(
    entry: AuditInput,
    name: Promise<string | null>,
    named: (name: string) => Partial<AuditInput> = (personName) => ({ personName }),
  ): void {
    const at = entry.at ?? this.now();
    const recorded: Promise<void> = name
      .then(
        (read) => this.record({ ...entry, at, ...(read === null ? {} : named(read)) }),
        () => this.record({ ...entry, at }),
      )
      .finally(() => this.naming.delete(recorded));
    this.naming.add(recorded);
  }

  /**
   * Queues a tool call's entry with who or what decided it (audit/decider.ts; null: nothing was
   * decided, e.g. its arguments were bad); a person the decider names by id only (Stop, pressed
   * in a window on any bridge of the site) is named from the store first.
   */
  recordCall(
    call: Omit<AuditInput, 'decidedBy' | 'decidedByPersonId'> & { decider: Decider | null },
  ): void {
    const { decider, ...entry } = call;
    const decided: AuditInput = {
      ...entry,
      decidedBy: decider?.name ?? null,
      decidedByPersonId: decider?.personId ?? null,
    };
    const words = decider?.named;
    if (words === undefined || decider?.personId == null) {
      this.record(decided);
      return;
    }
    this.recordNaming(decided, this.displayName(decider.personId), (name) => ({
      decidedBy: words(name),
    }));
  }

  /** Waits for every entry recorded so far (tests, shutdown; through an outage, until it ends). */
  async flush(): Promise<void> {
    await Promise.all(this.naming);
    await this.queue.flush();
  }

  /**
   * Before a read of the log: writes what was recorded so far at once (instead of after the
   * write-behind's gather), so a person who just changed something sees its entry — but waits
   * at most READ_WAIT_MS, so an outage never holds the audit page (it shows what is written).
   */
  async writtenForRead(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.flush(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, READ_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
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
    await this.queue.stop();
  }
}
