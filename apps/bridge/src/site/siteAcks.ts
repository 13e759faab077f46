// "Applied" answers to the broadcasts that take something away (a revoked token, ended MCP and
// sign-in sessions, changed toggles): the bridge that broadcasts one asks every other bridge to
// answer once it has applied it, and waits a bounded moment for them, so a "Revoke" that says
// done is in force on every bridge that answered — the next request anywhere is refused, not
// racing the broadcast's delivery. Each answer is sealed for the broadcast's own reply subject
// (siteSeal.ts) and counted only if it opens: someone with the NATS credentials but not the
// site's key cannot fake one (and acks only end a wait early; a missing one costs at most
// APPLIED_WAIT_MS, never the request). The reply subject is sealed with the broadcast
// (broadcastWhere): one sent again with another reply subject, or none, does not open. It is
// this run's own (a random part: a restarted bridge never asks at a subject it asked at before,
// so an answer captured then ends no wait now), and a bridge answers only to the sender's own
// `applied` subjects (named after the sealed `from`).
// Whether a bridge is alone is told by the site's own sealed presence, not by NATS: each bridge
// says `bridge_here` as it joins (an acked broadcast: every other bridge marks it and answers, so
// it learns them, before it serves anything) and every HERE_EVERY_MS after. A bridge that heard
// no other lately ends its waits at once — a process holding the NATS credentials but not the
// site's key, listening to the broadcasts in silence (NATS then sends no "no responders"), cannot
// make it wait. NATS's "no responders" status, which cannot be sealed and anyone with the
// credentials can send, ends a wait at once only while no bridge is waited for (one that missed
// a deadline is still present, and may answer); otherwise it is ignored.
// The wait ends at once for a bridge alone, when NATS says nobody listens (as above), at
// APPLIED_WAIT_MS, or once every bridge this one has heard from lately has answered and no new
// answer came for APPLIED_STALL_MS. A known bridge that does not answer is named in a warning
// and not waited for until heard from again (so a dead bridge slows one revocation, not each);
// its token cache ends on its own within CACHE_MS (auth/apiTokens.ts).
import { randomBytes } from 'node:crypto';
import type { Msg, Subscription } from 'nats';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import { EventApplied, type SiteEvent, type SiteEventInput } from './messages.js';
import type { SiteBus } from './siteBus.js';

/** The longest a broadcast waits for the other bridges' "applied". */
export const APPLIED_WAIT_MS = 100;
/** Once the known bridges answered: how long without a new answer ends the wait early. */
export const APPLIED_STALL_MS = 15;
/** A bridge not heard from for this long is not waited for (it may have left). */
const KNOWN_FOR_MS = 10 * 60_000;
/** How often a bridge says it is in the site (well within KNOWN_FOR_MS). */
export const HERE_EVERY_MS = 60_000;

/** The broadcasts whose sender waits until the others applied them. */
const ACKED: ReadonlySet<SiteEvent['type']> = new Set<SiteEvent['type']>([
  'bridge_here',
  'tokens_invalidated',
  'mcp_sessions_ended',
  'sign_in_sessions_ended',
  'permissions_changed',
]);

/** Whether broadcasts of `type` are answered with "applied". */
export function isAcked(type: SiteEvent['type']): boolean {
  return ACKED.has(type);
}

interface Gathering {
  answered: Set<string>;
  stall: NodeJS.Timeout | undefined;
  deadline: NodeJS.Timeout;
  end(why: 'all' | 'no responders' | 'deadline' | 'closed'): void;
}

export class SiteAcks {
  /** Bridges waited for: heard from (any broadcast or answer), by when. */
  private readonly known = new Map<string, number>();
  /** Bridges in the site: heard from, by when (kept when one misses a deadline). */
  private readonly present = new Map<string, number>();
  private readonly saying: NodeJS.Timeout;
  /** This bridge's first `bridge_here`, answered by the bridges there (or the wait over). */
  readonly announced: Promise<void>;
  private readonly gathering = new Map<string, Gathering>();
  /** This bridge's `applied` subjects (`<subjects><run><counter>`). */
  private readonly subjects: string;
  /** This run's: `subjects` and a random part. */
  private readonly prefix: string;
  private readonly subscription: Subscription;
  private asked = 0;

  constructor(
    private readonly bus: SiteBus,
    private readonly logger: Logger,
  ) {
    this.subjects = `${bus.bridgeSubject(bus.bridgeId, 'applied')}.`;
    // One token (no dot) of 8 base64url characters, then the counter.
    this.prefix = this.subjects + randomBytes(6).toString('base64url');
    this.subscription = bus.nc.subscribe(`${this.subjects}*`, {
      callback: (_err, msg) => this.answered(msg),
    });
    this.announced = this.publish({ type: 'bridge_here' });
    this.saying = setInterval(() => void bus.publish({ type: 'bridge_here' }), HERE_EVERY_MS);
    this.saying.unref();
  }

  /**
   * Broadcasts `event`; for an acked type, settles once the other bridges applied it (or the
   * bounded wait is over). Never rejects.
   */
  async publish(event: SiteEventInput): Promise<void> {
    if (!isAcked(event.type)) return this.bus.publish(event);
    this.asked = (this.asked + 1) % Number.MAX_SAFE_INTEGER;
    const reply = this.prefix + this.asked.toString(36);
    const done = this.gather(reply, event.type);
    await this.bus.publish(event, reply);
    await done;
  }

  /** A bridge of the site said something (it is alive: wait for its answers). */
  heard(from: string): void {
    const now = Date.now();
    this.known.set(from, now);
    this.present.set(from, now);
  }

  /**
   * Answers `event` (from the message `msg`) with "applied" once `applying` settled without
   * error: only for acked types, and only to the sender's own `applied` subjects.
   */
  async answerOnceApplied(event: SiteEvent, msg: Msg, applying: Promise<void>): Promise<void> {
    this.heard(event.from);
    await applying;
    if (!isAcked(event.type) || msg.reply === undefined) return;
    if (!msg.reply.startsWith(`${this.bus.bridgeSubject(event.from, 'applied')}.`)) return;
    try {
      msg.respond(this.bus.sealReply(msg, { type: 'applied', from: this.bus.bridgeId }));
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'site: could not say a broadcast was applied');
    }
  }

  close(): void {
    clearInterval(this.saying);
    for (const waiting of [...this.gathering.values()]) waiting.end('closed');
    this.subscription.unsubscribe();
  }

  private gather(reply: string, type: SiteEvent['type']): Promise<void> {
    // Alone (no bridge said it is here lately): nobody to wait for. Not for `bridge_here`
    // itself, whose answers are how a joining bridge learns the others.
    if (type !== 'bridge_here' && !this.anyPresent()) return Promise.resolve();
    return new Promise((resolve) => {
      const waiting: Gathering = {
        answered: new Set(),
        stall: undefined,
        deadline: setTimeout(() => waiting.end('deadline'), APPLIED_WAIT_MS),
        end: (why) => {
          if (this.gathering.get(reply) !== waiting) return;
          this.gathering.delete(reply);
          clearTimeout(waiting.deadline);
          clearTimeout(waiting.stall);
          if (why === 'deadline') this.missing(waiting.answered, type);
          resolve();
        },
      };
      this.gathering.set(reply, waiting);
    });
  }

  /** An answer at one of this bridge's `applied` subjects. */
  private answered(msg: Msg): void {
    const waiting = this.gathering.get(msg.subject);
    if (waiting === undefined) return;
    // NATS's status for a message nobody listens for: no other bridge is there.
    if (msg.data.byteLength === 0 && msg.headers?.code === 503) {
      // Anyone can send this status: believed only by a bridge that knows no other.
      if (this.waitingFor(waiting.answered).length === 0) waiting.end('no responders');
      return;
    }
    const opened = this.bus.openReply(EventApplied, msg);
    if (!opened.ok) {
      this.bus.dropped.warn(
        { error: opened.error, bytes: msg.data.byteLength },
        'site: dropped an "applied" that failed its seal or schema',
      );
      return;
    }
    const from = opened.message.from;
    this.heard(from);
    waiting.answered.add(from);
    clearTimeout(waiting.stall);
    if (this.waitingFor(waiting.answered).length === 0)
      waiting.stall = setTimeout(() => waiting.end('all'), APPLIED_STALL_MS);
  }

  /** Whether any other bridge was heard from lately. */
  private anyPresent(): boolean {
    const since = Date.now() - KNOWN_FOR_MS;
    for (const [bridge, at] of this.present) {
      if (at >= since) return true;
      this.present.delete(bridge);
    }
    return false;
  }

  /** The bridges heard from lately that have not answered yet. */
  private waitingFor(answered: Set<string>): string[] {
    const since = Date.now() - KNOWN_FOR_MS;
    const missing: string[] = [];
    for (const [bridge, at] of this.known) {
      if (at < since) this.known.delete(bridge);
      else if (!answered.has(bridge)) missing.push(bridge);
    }
    return missing;
  }

  /** Names the known bridges that did not answer in time, and stops waiting for them. */
  private missing(answered: Set<string>, type: SiteEvent['type']): void {
    const bridges = this.waitingFor(answered);
    for (const bridge of bridges) this.known.delete(bridge);
    this.logger.warn(
      { type, bridges, answered: answered.size, waitMs: APPLIED_WAIT_MS },
      bridges.length > 0
        ? 'site: bridges did not say they applied a broadcast in time (their token cache ends on its own)'
        : 'site: no answer that a broadcast was applied in time',
    );
  }
}
