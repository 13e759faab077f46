// One encoded frame stream shared by the full-attention users of a connection that are in step
// (guacUser.ts): the recorder that joins as a further user and every browser that keeps up see
// the same changes at the same moments, so each frame is encoded once and the same instructions
// go to all of them (each with its own `sync`, counted in its own flow-control window). A frame
// is taken when every member can take one; a member that still cannot after STEP_WAIT_MS falls
// out of step instead of holding the others (and is not waited for again for
// STEP_PROBATION_MS): it is handed what the frame would have shown it (the pending changes and
// where its screen is lossy) and catches up on its own pipeline, coalesced. A user out of step
// takes its own frames when the stream takes one (takeAligned), and joins before the stream's
// next frame once it took its last frame at the same RFB update as the stream did — from then
// on both have seen the same changes, so what the stream has pending is what that user has
// pending. A passive watcher (the recorder: packages/guac's attention.ts) never leads: the
// stream takes a frame only when an active member (a viewer) can take one, so the passive one
// gets exactly the viewers' frames at their pace and is never the reason for an encode; a stream
// left with passive members only hands them their pending changes and empties (they follow the
// viewers out of step through takeAligned, or pace themselves when nobody views).
import type { Logger } from 'pino';
import type { OutInstruction } from '../encode/instructions.js';
import type { Rect } from '../encode/rect.js';
import type { CopyOp } from '../encode/instructions.js';
import { HEAVY_FRAME_INTERVAL_MS, HEAVY_FRAME_PIXELS } from './encodePolicy.js';
import { FrameEncoder, type FrameSource, type StreamingOptions } from './frameEncoder.js';
import { FrameState, type CursorImage, type PendingFrame } from './frameState.js';
import type { LossyRegions } from './lossyRegions.js';
import { StreamIndexes } from './streamIndexes.js';

/**
 * How long members that can take a frame wait for one that cannot before it falls out of step.
 * A browser that keeps up acknowledges within a frame or two (the window is two frames), so a
 * short wait keeps it in step through a hiccup; beyond this it is a slow browser, and others
 * must not run at its pace.
 */
export const STEP_WAIT_MS = 100;
/**
 * A member that fell out of step this recently is not waited for again: a browser that keeps
 * falling behind (or holds its `sync` back on purpose) costs the others one wait per this long
 * at most, not one per frame.
 */
export const STEP_PROBATION_MS = 1000;

/** What the stream needs of a user in step. */
export interface StepMember {
  /** The user could be sent a frame now (flow-control window open, socket not backpressured). */
  readonly canTakeFrame: boolean;
  /** A passive watcher (packages/guac's attention.ts): it follows the stream, never leads it. */
  readonly passive: boolean;
  /** Sends what the user has pending on its own pipeline, if it may (after leaving the stream). */
  pump(): void;
  /** Smoothed time from sending a frame to its `sync`, ms (sets the quality of lossy images). */
  readonly roundTripMs: number;
  /** Sends a frame's instructions (the caller's array is shared: copy before adding to it). */
  deliver(out: readonly OutInstruction[]): void;
  /**
   * The user fell out of step: `frame` is what it was not sent, `lossy` where its screen is
   * lossy before that frame; from now on its own pipeline carries it.
   */
  fallBehind(frame: PendingFrame, lossy: LossyRegions): void;
  /** The shared encoder failed: the user's connection ends. */
  encodeFailed(): void;
  /**
   * Out of step: joins `stream` if it is in step with it now (see SharedFrames.join); the
   * stream asks before each frame.
   */
  joinIfInStep(stream: SharedFrames<StepMember>): boolean;
  /** Out of step: the update its own frame being encoded was taken at (undefined: none). */
  readonly ownFrameAt: number | undefined;
  /**
   * Out of step: takes its own next frame now, if it can (the stream is taking one), encoded for
   * `lag` (the stream's, so that the images of both come from one encode).
   */
  takeAligned(lag: number): void;
}

export class SharedFrames<Member extends StepMember> {
  private readonly members = new Set<Member>();
  /** When each user last fell out of step (performance.now()). */
  private readonly fellBehindAt = new WeakMap<Member, number>();
  private readonly state: FrameState;
  private readonly encoder: FrameEncoder;
  private encoding = false;
  /** The RFB update count (VncSession.updates) when the last frame was taken (-1: none). */
  private takenAt = -1;
  /** No frame before this time (performance.now()): the last one was heavy. */
  private heavyUntil = 0;
  /** When the last frame was taken (performance.now()). */
  private lastTakeAt = Number.NEGATIVE_INFINITY;
  /** Since when (performance.now()) members that could take a frame wait for one that cannot. */
  private waitingSince: number | undefined;
  private waitTimer: NodeJS.Timeout | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private readonly streams = new StreamIndexes();

  constructor(
    private readonly source: FrameSource & { readonly updates: number },
    imageTypes: readonly string[],
    streaming: StreamingOptions,
    private readonly onFrameEncoded: ((encodeMs: number) => void) | undefined,
    private readonly logger: Logger,
    /** The users of this kind at full attention that are out of step (they may join). */
    private readonly outOfStep: () => Iterable<Member>,
  ) {
    this.state = new FrameState(source.width, source.height);
    this.encoder = new FrameEncoder(source, imageTypes, streaming, () => this.streams.take());
  }

  get size(): number {
    return this.members.size;
  }

  /**
   * The stream is taking frames (it has members and took one lately): a user out of step takes
   * its own frames when the stream does (takeAligned), so that the two meet and it can join.
   */
  get takingFrames(): boolean {
    return (
      this.members.size > 0 && (this.encoding || performance.now() - this.lastTakeAt < STEP_WAIT_MS)
    );
  }

  /** No frame is taken before this time (performance.now()): the last one was heavy. */
  get pacedUntil(): number {
    return this.heavyUntil;
  }

  /** True when frames wait and none can go out now (the session may stop pulling updates). */
  get lagging(): boolean {
    if (!this.state.hasPending) return false;
    const paced = performance.now() < this.heavyUntil;
    return this.encoding || paced || ![...this.members].some((m) => !m.passive && m.canTakeFrame);
  }

  /**
   * Takes `member` into the stream if it is in step: it took its last frame at the same update
   * the stream did and holds nothing the stream's next frame would repeat wrongly. `pending` is
   * what it still had (redrawn rects, lossless redraws, cursor: all safe to send everyone
   * again), `lossy` where its screen is lossy. Returns false when it is not in step.
   */
  join(
    member: Member,
    takenAt: number | undefined,
    pending: () => PendingFrame,
    lossy: LossyRegions,
  ): boolean {
    // An empty stream has no history to be in step with (found starts it).
    if (this.encoding || this.members.size === 0 || takenAt !== this.takenAt) return false;
    const frame = pending();
    for (const rect of frame.rects) this.state.markDirty(rect);
    for (const rect of frame.lossless) this.state.markLossless(rect);
    if (frame.cursor !== undefined) this.state.setCursor(frame.cursor);
    this.encoder.mergeLossy(lossy);
    this.members.add(member);
    this.scheduleSettle();
    return true;
  }

  /**
   * Starts the stream with `member` alone: its own pipeline took its last frame at update
   * `takenAt` (undefined: never), `pending` is all it has not been sent since, `lossy` where its
   * screen is lossy. Returns false when the stream is not empty (or still finishing a frame).
   */
  found(
    member: Member,
    takenAt: number | undefined,
    pending: () => PendingFrame,
    lossy: LossyRegions,
  ): boolean {
    if (this.members.size > 0 || this.encoding) return false;
    this.members.add(member);
    this.takenAt = takenAt ?? -1;
    this.state.apply(pending());
    this.encoder.mergeLossy(lossy);
    this.scheduleSettle();
    return true;
  }

  /** `member` left (or changed attention): it takes nothing more from the stream. */
  remove(member: Member): void {
    this.members.delete(member);
    if (this.members.size === 0) this.clear();
    else this.disbandIfLeaderless();
  }

  has(member: Member): boolean {
    return this.members.has(member);
  }

  markDirty(rect: Rect): void {
    if (this.members.size > 0) this.state.markDirty(rect);
  }
  addCopy(op: CopyOp): void {
    if (this.members.size > 0) this.state.addCopy(op);
  }
  resize(width: number, height: number): void {
    // Kept at the screen's size even while empty (found applies pending changes to it).
    this.state.resize(width, height);
    if (this.members.size === 0) this.state.take();
  }
  setCursor(cursor: CursorImage): void {
    if (this.members.size > 0) this.state.setCursor(cursor);
  }

  /**
   * Sends a frame to every member if all can take one (or the slow ones waited long enough),
   * after taking in the users out of step that are in step again; users out of step take their
   * own frames at the same moment (takeAligned), to be in step for the next.
   */
  pump(): void {
    if (this.encoding || this.members.size === 0) return;
    if (this.disbandIfLeaderless()) return;
    for (const user of [...this.outOfStep()]) user.joinIfInStep(this);
    if (this.source.updating || !this.state.hasPending || this.source.framebuffer === undefined)
      return;
    const now = performance.now();
    if (now < this.heavyUntil) {
      this.wakeAt(this.heavyUntil);
      return;
    }
    const ready = [...this.members].filter((m) => m.canTakeFrame);
    // Only a viewer that can take a frame makes the stream take one: passive members wait.
    if (!ready.some((m) => !m.passive)) {
      this.waitingSince = undefined;
      return;
    }
    // Members that cannot take a frame yet are waited for (unless on probation), and so is a
    // user whose own frame was taken at the stream's last update (it joins once that is sent).
    // A passive one of those is waited for even on probation: what it waits on is our own
    // encode, not its browser, and out of step it would cost an encode per frame.
    const onProbation = (m: Member) =>
      now - (this.fellBehindAt.get(m) ?? Number.NEGATIVE_INFINITY) < STEP_PROBATION_MS;
    const waitFor = [
      ...[...this.members].filter((m) => !ready.includes(m) && !onProbation(m)),
      ...[...this.outOfStep()].filter(
        (user) => user.ownFrameAt === this.takenAt && (user.passive || !onProbation(user)),
      ),
    ];
    if (waitFor.length > 0) {
      this.waitingSince ??= now;
      if (now - this.waitingSince < STEP_WAIT_MS) {
        this.wakeAt(this.waitingSince + STEP_WAIT_MS);
        return;
      }
    }
    this.waitingSince = undefined;
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    const frame = this.state.take();
    this.takenAt = this.source.updates;
    this.lastTakeAt = now;
    // One lag for the stream and the users taking their frames with it: the images they share
    // are then encoded once (encodeCache.ts); the slowest sets it.
    const aligned = [...this.outOfStep()].filter((user) => user.canTakeFrame);
    const lag = Math.max(
      0,
      ...ready.map((m) => m.roundTripMs),
      ...aligned.map((u) => u.roundTripMs),
    );
    for (const user of aligned) user.takeAligned(lag);
    for (const member of this.members) {
      if (ready.includes(member)) continue;
      this.members.delete(member);
      this.fellBehindAt.set(member, now);
      member.fallBehind(frame, this.encoder.lossySnapshot());
    }
    const pixels = frame.rects.reduce((sum, r) => sum + r.width * r.height, 0);
    if (pixels >= HEAVY_FRAME_PIXELS) this.heavyUntil = now + HEAVY_FRAME_INTERVAL_MS;
    this.encoding = true;
    this.encoder.encode(frame, lag).then(
      (out) => {
        this.encoding = false;
        this.onFrameEncoded?.(performance.now() - now);
        // Members that left meanwhile are not in the set any more.
        for (const member of ready) if (this.members.has(member)) member.deliver(out);
        this.scheduleSettle();
        this.pump();
      },
      (error: unknown) => {
        this.encoding = false;
        this.logger.error({ err: error }, 'frame encoding failed');
        for (const member of [...this.members]) member.encodeFailed();
      },
    );
  }

  /**
   * Only passive members are left (the last viewer left or changed attention): each is handed
   * what the stream has pending and goes on its own pipeline, and the stream empties. Not while
   * a frame is encoding (its members would miss it): its end pumps, which comes here again.
   */
  private disbandIfLeaderless(): boolean {
    if (this.encoding || this.members.size === 0) return false;
    if ([...this.members].some((m) => !m.passive)) return false;
    const frame = this.state.take();
    const left = [...this.members].map((member) => ({
      member,
      lossy: this.encoder.lossySnapshot(), // one each: a member's own encoder keeps it
    }));
    this.members.clear();
    this.clear();
    for (const { member, lossy } of left) member.fallBehind(frame, lossy);
    // Its own pipeline sends that frame (nothing else may wake it on a still screen).
    setImmediate(() => {
      for (const { member } of left) member.pump();
    });
    return true;
  }

  /** Calls pump at `at` (performance.now()), unless a wake-up is already due. */
  private wakeAt(at: number): void {
    if (this.waitTimer !== undefined) return;
    this.waitTimer = setTimeout(
      () => {
        this.waitTimer = undefined;
        this.pump();
      },
      Math.max(1, at - performance.now()),
    );
  }

  /** Wakes up when the next lossy region settles, to redraw it losslessly for everyone. */
  private scheduleSettle(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    const due = this.encoder.nextSettle();
    if (due === undefined || this.members.size === 0) return;
    this.settleTimer = setTimeout(() => this.settle(), Math.max(0, due - Date.now()));
    this.settleTimer.unref();
  }

  private settle(): void {
    this.settleTimer = undefined;
    // A frame being encoded may still change what is lossy; its end reschedules this.
    if (this.encoding || this.members.size === 0) return;
    for (const rect of this.encoder.takeSettled(Date.now())) this.state.markLossless(rect);
    this.pump();
    if (!this.encoding) this.scheduleSettle();
  }

  /** Nobody is in step: nothing pending or lossy is anyone's any more. */
  private clear(): void {
    clearTimeout(this.waitTimer);
    clearTimeout(this.settleTimer);
    this.waitTimer = undefined;
    this.settleTimer = undefined;
    this.waitingSince = undefined;
    this.state.take();
    this.encoder.resetLossy();
  }
}
