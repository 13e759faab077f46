// Watches one tunnel's desktop link for a stall the desktop server will not report (Apache guacd:
// see linkProbe.ts). While the desktop has sent nothing for `quietMs`, the desktop server is
// probed every `probeEveryMs`, and at once (at most every `quietMs`) after the browser sent input
// that nothing answered: someone is waiting for the desktop then. A probe that gets no answer
// within `probeTimeoutMs`, with still nothing from the desktop meanwhile, is a stall: `stalled`
// is called once and the watch stops. Anything from the desktop (`heard`) proves the link.
// Nothing is probed before the desktop first drew: an RDP login takes its time, and knocking on
// the server while it starts a session only adds load there (guacd's handshake timeout and the
// viewer's own wait for a first frame cover that stretch).
//
// Deadline: a link that stalls while the desktop is busy is noticed within quietMs +
// probeTimeoutMs (+ one tick); one that stalls while the desktop is still, within probeEveryMs +
// probeTimeoutMs, or quietMs + probeTimeoutMs after the next input.
import type { ProbeOutcome } from './linkProbe.js';

export interface LinkWatchOptions {
  /**
   * Knocks on the desktop server, giving up after the given milliseconds; the knock must begin
   * no earlier than `notBefore` (a shared probe already under way from before does not count).
   */
  probe: (timeoutMs: number, notBefore: number) => Promise<ProbeOutcome>;
  stalled: (quietForMs: number) => void;
  quietMs?: number;
  probeEveryMs?: number;
  probeTimeoutMs?: number;
  now?: () => number;
}

/** The defaults, and the deadline they give (stated in the README and the stall tests). */
export const LINK_QUIET_MS = 2_000;
export const LINK_PROBE_EVERY_MS = 5_000;
export const LINK_PROBE_TIMEOUT_MS = 4_000;
/**
 * How long after an input the desktop's drawing counts as life for its receipt. Drawing heard
 * sooner proves nothing: guacd relays what the desktop sent before the input with a lag (it
 * decodes and encodes every frame, and under load that takes tens of milliseconds), so a link
 * that stalls just before the input still delivers frames after it — CI's stalled-RDP test saw
 * such a frame vouch for a mouse move into the stalled link. Until then only a probe of the
 * desktop server, begun after the input, vouches (it is started at once and costs a few ms).
 */
export const VOUCH_DRAWING_AFTER_MS = 1_000;
/** The longest a stall goes unnoticed with the defaults (a still desktop, no input). */
export const LINK_STALL_DEADLINE_MS = LINK_PROBE_EVERY_MS + LINK_PROBE_TIMEOUT_MS + 500;

export class LinkWatch {
  private lastHeard: number;
  private everHeard = false;
  private lastInput: number | undefined;
  private lastProbe = Number.NEGATIVE_INFINITY;
  private probing = false;
  private stopped = false;
  /** Receipts waiting for the desktop to show life after `since` (vouch). */
  private vouchers: { since: number; resolve: (alive: boolean) => void }[] = [];
  private vouchTimer: NodeJS.Timeout | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly quietMs: number;
  private readonly probeEveryMs: number;
  private readonly probeTimeoutMs: number;

  constructor(private readonly options: LinkWatchOptions) {
    this.now = options.now ?? Date.now;
    this.quietMs = options.quietMs ?? LINK_QUIET_MS;
    this.probeEveryMs = options.probeEveryMs ?? LINK_PROBE_EVERY_MS;
    this.probeTimeoutMs = options.probeTimeoutMs ?? LINK_PROBE_TIMEOUT_MS;
    this.lastHeard = this.now();
    this.timer = setInterval(() => this.tick(), Math.max(10, this.quietMs / 4));
    this.timer.unref();
  }

  /** The desktop sent something. */
  heard(): void {
    this.lastHeard = this.now();
    this.everHeard = true;
    this.settleVouchers(this.lastHeard - VOUCH_DRAWING_AFTER_MS);
  }

  /**
   * Resolves true once the desktop shows life after this moment — a probe of its server begun
   * after now answers, or it still sends VOUCH_DRAWING_AFTER_MS later — and false when the link
   * is found stalled or the watch stops first. Input receipts through a server that never
   * acknowledges input (Apache guacd) rest on this.
   */
  vouch(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.vouchers.push({ since: this.now(), resolve });
      this.scheduleVouchProbe();
    });
  }

  /** The browser sent input to the desktop. */
  inputSent(): void {
    this.lastInput = this.now();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.vouchTimer);
    for (const voucher of this.vouchers.splice(0)) voucher.resolve(false);
  }

  /** Resolves the receipts waiting since no later than `at`. */
  private settleVouchers(at: number): void {
    if (this.vouchers.length === 0) return;
    const waiting: typeof this.vouchers = [];
    for (const voucher of this.vouchers) {
      if (voucher.since <= at) voucher.resolve(true);
      else waiting.push(voucher);
    }
    this.vouchers = waiting;
  }

  /** Receipts asked in the same turn share one probe; one asked during a probe gets the next. */
  private scheduleVouchProbe(): void {
    if (this.vouchTimer !== undefined || this.stopped) return;
    this.vouchTimer = setTimeout(() => {
      this.vouchTimer = undefined;
      if (this.vouchers.length > 0 && !this.probing && !this.stopped) void this.probe(this.now());
    }, 0);
    this.vouchTimer.unref();
  }

  private tick(): void {
    if (this.stopped || this.probing || !this.everHeard) return;
    const now = this.now();
    const quietFor = now - this.lastHeard;
    if (quietFor < this.quietMs) return;
    const unanswered = this.lastInput !== undefined && this.lastInput > this.lastHeard;
    const due = now - this.lastProbe >= (unanswered ? this.quietMs : this.probeEveryMs);
    if (due) void this.probe(now);
  }

  private async probe(startedAt: number): Promise<void> {
    this.probing = true;
    this.lastProbe = startedAt;
    const outcome = await this.options
      .probe(this.probeTimeoutMs, startedAt)
      .catch((): ProbeOutcome => 'answered');
    this.probing = false;
    if (this.stopped) return;
    if (outcome === 'silent' && this.lastHeard < startedAt) {
      this.stop();
      this.options.stalled(this.now() - this.lastHeard);
      return;
    }
    // The server answered (or refused us, which it can only do while it runs): the way works.
    // A silent probe while the desktop still drew is no stall, but vouches for nothing either:
    // those receipts wait for drawing late enough (heard) or the next probe.
    if (outcome !== 'silent') this.settleVouchers(startedAt);
    if (this.vouchers.length > 0) this.scheduleVouchProbe();
  }
}
