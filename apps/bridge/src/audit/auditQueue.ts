// Getting audit entries into the store without losing one: entries wait in a bounded in-memory
// queue and are written behind, a burst in one statement, in the order they were recorded and
// with the times they were recorded at. A write that fails stays at the head of the queue and is
// retried (backing off to every few seconds) until the store takes it; when it does, an entry
// saying where the outage was follows what was queued meanwhile. While the queue is full, desktop
// input must wait (refusal()): the person's policy depends on the record.
//
// Why memory and not a spill file: the two outages that happen are a PostgreSQL that does not
// answer (memory outlives it; a file would too but buys nothing) and a full disk under SQLite — a
// file beside the database cannot be written either. So the queue is bounded instead, input is
// refused while it is full, and only a bridge stopped in the middle of an outage can lose what is
// still queued (stop() says how many, at error).
import { ProtocolError } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import { storeOutage } from '../store/errors.js';
import type { NewAuditEntry, Store } from '../store/types.js';

export interface AuditQueueLimits {
  /** Entries waiting at which desktop input is refused. */
  entries: number;
  /** Screenshot bytes waiting at which desktop input is refused (screenshots dwarf the rest). */
  bytes: number;
  /**
   * A fixed wait for more entries to join a write (tests hold writes back with it; flush() cuts
   * it short). Unset: the end of the tick, at most one write per GATHER_MS (see GATHER_MS).
   */
  gatherMs?: number;
}

export const DEFAULT_AUDIT_QUEUE: AuditQueueLimits = { entries: 2_000, bytes: 64 * 1024 * 1024 };

/**
 * Writes are at least this far apart; what is recorded meanwhile joins the next one, in one
 * INSERT. On SQLite a row written alone costs about four times the CPU of a row in a batch of
 * five or more (measured: ~55 µs against ~13 µs), and many sessions record an entry every few
 * milliseconds. A write after a quiet spell goes at the end of the tick that recorded it: after
 * the call's answer was handed to its socket, and long before the next call of a paced AI (a
 * fixed wait of 10 ms after each entry used to land the INSERT, synchronous under SQLite, in the
 * middle of the next call). What waits is in the same queue as before (flush and stop write it
 * at once); only a bridge killed within these milliseconds loses it, as it would lose a queued
 * entry.
 */
const GATHER_MS = 10;

/**
 * Past the limits only entries of calls that are refused and of people's own actions arrive;
 * they are kept up to this many times the limits. Beyond that every tool call is refused too,
 * and an entry that still arrives (a sign-in, say) is counted as lost and reported.
 */
const HARD_FACTOR = 2;
/** Entries per INSERT (17 columns each stays far below SQLite's bound-parameter limit). */
const MAX_BATCH = 200;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
/** How long stop() waits for a store that does not answer before giving up on the queue. */
const STOP_WAIT_MS = 10_000;

interface Outage {
  since: number;
  /** Entries that waited because of it (queued when it began, or recorded during it). */
  queued: number;
  /** Entries that arrived with the queue past its hard limit. */
  lost: number;
  reason: string;
}

export interface AuditQueueState {
  waiting: number;
  /** When writing began to fail, while it does. */
  failingSince: number | undefined;
  reason: string | undefined;
}

export class AuditQueue {
  private readonly queue: NewAuditEntry[] = [];
  private bytes = 0;
  private draining: Promise<void> | undefined;
  private outage: Outage | undefined;
  private failures = 0;
  private retryAt = 0;
  private wake: (() => void) | undefined;
  /** Ends the wait for more entries (see GATHER_MS) at once. */
  private hurry: (() => void) | undefined;
  private stopped = false;
  /** When the last write began (performance.now()): writes are GATHER_MS apart at least. */
  private lastWriteAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly now: () => number,
    private readonly limits: AuditQueueLimits = DEFAULT_AUDIT_QUEUE,
  ) {}

  push(entry: NewAuditEntry): void {
    if (this.beyond(HARD_FACTOR)) {
      // Not silent: counted into the outage entry and logged once per entry (rare by design:
      // every tool call is refused before this point).
      this.outage ??= this.newOutage('the audit queue overflowed');
      this.outage.lost += 1;
      this.logger.error({ kind: entry.kind, waiting: this.queue.length }, 'audit entry lost');
      return;
    }
    this.queue.push(entry);
    this.bytes += entry.screenshot?.data.length ?? 0;
    if (this.outage !== undefined) this.outage.queued += 1;
    this.draining ??= this.drain();
  }

  /**
   * Why a tool call has to wait for the audit, or undefined. rate_limited, because it is the
   * kind whose meaning (and ERROR_HINTS) tells the AI to wait retry_after_ms and call again;
   * system_error's hint would send it to take a screenshot first.
   */
  refusal(isInput: boolean): ProtocolError | undefined {
    const blocked = this.stopped || this.beyond(isInput ? 1 : HARD_FACTOR);
    if (!blocked) return undefined;
    const retryAfterMs = Math.min(
      MAX_RETRY_MS,
      Math.max(1_000, this.retryAt - this.now() + FIRST_RETRY_MS),
    );
    const why = this.stopped
      ? 'the bridge is shutting down'
      : `${this.outage?.reason ?? 'the store is slow'}; ${this.queue.length} entries are waiting`;
    const what = isInput
      ? 'Desktop input is paused so that nothing happens on the desktop without a record; screenshots and other read-only tools still work.'
      : 'Every tool call waits until the audit catches up.';
    return new ProtocolError(
      'rate_limited',
      `The audit log cannot be written right now (${why}). ${what} Retry in ${Math.ceil(retryAfterMs / 1000)} s.`,
      retryAfterMs,
    );
  }

  state(): AuditQueueState {
    return {
      waiting: this.queue.length,
      failingSince: this.failures > 0 ? this.outage?.since : undefined,
      reason: this.failures > 0 ? this.outage?.reason : undefined,
    };
  }

  /** Waits until everything pushed so far is written (tests; after an outage, until it ends). */
  async flush(): Promise<void> {
    while (this.draining !== undefined) {
      this.hurry?.();
      await this.draining;
    }
  }

  /** Refuses input from now on and waits (a bounded time) for the queue to be written. */
  async stop(): Promise<void> {
    this.stopped = true;
    const timer = setTimeout(() => {
      if (this.queue.length === 0) return;
      this.logger.error(
        { entries: this.queue.length },
        'audit entries not written: the store did not answer before the bridge stopped',
      );
      this.queue.length = 0;
      this.bytes = 0;
      this.wake?.();
    }, STOP_WAIT_MS);
    await this.flush();
    clearTimeout(timer);
  }

  /** True when the queue is at `factor` times its limits. */
  private beyond(factor: number): boolean {
    return (
      this.queue.length >= this.limits.entries * factor || this.bytes >= this.limits.bytes * factor
    );
  }

  private newOutage(reason: string): Outage {
    return { since: this.now(), queued: this.queue.length, lost: 0, reason };
  }

  private async drain(): Promise<void> {
    // Let what is recorded meanwhile join this write (GATHER_MS).
    await this.gather(
      this.limits.gatherMs ?? Math.max(0, this.lastWriteAt + GATHER_MS - performance.now()),
    );
    while (this.queue.length > 0) {
      try {
        this.lastWriteAt = performance.now();
        await this.writeHead();
      } catch (err) {
        this.failed(err);
        await this.pause(this.retryAt - this.now());
        continue;
      }
      if (this.outage !== undefined) this.recovered(this.outage);
    }
    this.draining = undefined;
  }

  /** Writes the queue's first batch and takes what was written off the queue. */
  private async writeHead(): Promise<void> {
    const batch = this.queue.slice(0, MAX_BATCH);
    try {
      await this.store.audit.appendMany(batch);
      this.taken(batch.length);
      return;
    } catch (err) {
      if (storeOutage(err) !== undefined) throw err;
      this.logger.warn(
        { error: errorMessage(err), entries: batch.length },
        'audit batch refused by the store; writing its entries one by one',
      );
    }
    // The store refused what is in the batch, not the write (PostgreSQL stores no NUL character
    // in text, say). Each entry alone; one still refused is kept without its free text, so that
    // the call stays on record. Anything else that fails is retried like an outage.
    for (const entry of batch) {
      try {
        await this.store.audit.appendMany([entry]);
      } catch (err) {
        if (storeOutage(err) !== undefined) throw err;
        await this.store.audit.appendMany([withoutText(entry)]);
      }
      this.taken(1);
    }
  }

  private taken(count: number): void {
    for (const entry of this.queue.splice(0, count)) {
      this.bytes -= entry.screenshot?.data.length ?? 0;
    }
  }

  private failed(err: unknown): void {
    const reason = storeOutage(err) ?? 'the store refused the write';
    if (this.failures === 0) {
      this.outage ??= this.newOutage(reason);
      this.outage.reason = reason;
      // One line per outage, not per retry; never the entries' content.
      this.logger.error(
        { error: errorMessage(err), waiting: this.queue.length },
        'audit entries could not be stored; keeping them and retrying',
      );
    }
    this.failures += 1;
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.failures - 1));
    this.retryAt = this.now() + delay;
  }

  /** The first write after an outage: say where it was, after what was queued during it. */
  private recovered(outage: Outage): void {
    this.outage = undefined;
    this.failures = 0;
    this.retryAt = 0;
    const at = this.now();
    const lost =
      outage.lost === 0 ? '' : `; ${outage.lost} entries were lost because the queue was full`;
    const text = `the audit could not be written from ${iso(outage.since)} to ${iso(at)} (${outage.reason}); ${outage.queued} entries were queued and written now${lost}`;
    this.logger.warn({ queued: outage.queued, lost: outage.lost }, text);
    this.queue.push({
      at,
      kind: 'audit_outage',
      actor: 'system',
      personId: null,
      personName: null,
      outcome: outage.lost === 0 ? 'recovered' : 'entries_lost',
      durationMs: at - outage.since,
      detail: text,
    });
  }

  /**
   * Waits `ms` (0: until the end of this tick) for more entries, or until flush() (or stop())
   * wants them written now.
   */
  private async gather(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const later = () => this.hurry?.();
      const timer = ms > 0 ? setTimeout(later, ms) : setImmediate(later);
      this.hurry = () => {
        if (ms > 0) clearTimeout(timer as NodeJS.Timeout);
        else clearImmediate(timer as NodeJS.Immediate);
        this.hurry = undefined;
        resolve();
      };
    });
  }

  /** Sleeps `ms`, or until stop() gives up on the queue. */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function withoutText(entry: NewAuditEntry): NewAuditEntry {
  return {
    ...entry,
    clientName: null,
    summary: null,
    screenshot: null,
    detail: 'the store refused the text of this entry; kept without it',
  };
}
