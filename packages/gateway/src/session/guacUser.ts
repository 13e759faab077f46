// One browser joined to a VNC session: its frame pipeline and its input. A browser at full
// attention that keeps up takes its frames from the connection's shared stream
// (sharedFrames.ts: encoded once for every such browser, the recorder included) and has its own
// pipeline only while it is out of step. Frames are sent with
// flow control — at most MAX_FRAMES_IN_FLIGHT frames whose `sync` the browser has not returned,
// and none while the socket is backpressured — and changes that arrive meanwhile are coalesced
// in this browser's FrameState, so a slow browser costs bounded memory and never slows others.
// The time from sending a frame to its `sync` is this browser's lag: it sets the quality of
// lossy images (encodePolicy.ts). Lossy pixels are redrawn exactly once they have settled
// (frameEncoder.ts tracks them), so a still screen is pixel-exact. A heavy frame is followed by
// the next one no sooner than 33 ms later (HEAVY_FRAME_PIXELS). A browser that shows the desktop
// only at a glance (a fleet tile: packages/guac's attention.ts) gets at most one frame per
// GLANCE_FRAME_INTERVAL_MS, with everything in between coalesced, on ticks shared by every
// glancing browser of the gateway (so twenty tiles on one desktop take the same frame and share
// its encodes), and its busy areas at the lowest lossy quality. A `thumbnail` browser (a fleet
// tile nobody points at) is paced the same way (more slowly while the screen's content moves)
// and gets what changed scaled down into a thumbnail that fits THUMBNAIL_BOX, as one
// low-quality image per frame, encoded once for all such browsers of the connection
// (thumbnailFrames.ts); its display is then thumbnail-sized, so its pointer input is dropped
// (userInput.ts; tiles are watch-only anyway). Leaving `thumbnail` sends the desktop's size,
// every pixel and the cursor again. A passive watcher (the bridge's recorder, which says
// `x-oc-passive`) never makes frames be encoded for it alone while a viewer takes frames: in step
// it gets the shared stream's frames, which only viewers pace (sharedFrames.ts); out of step it
// takes its own frames when the stream takes one (takeAligned), never founds a stream, and
// otherwise takes its own at most once per PASSIVE_FRAME_INTERVAL_MS (a recorder-only connection,
// or one whose viewers are slow while the screen is still: that interval also bounds how late its
// last frame is).
// What the browser sends (input, delivery requests, keep-alive) is handled in userInput.ts.
import type { Logger } from 'pino';
import { GuacStatus, type AttentionLevel } from '@overlay-companion/guac';
import { clipboardInstructions, type CopyOp, type OutInstruction } from '../encode/instructions.js';
import type { Rect } from '../encode/rect.js';
import type { GuacSocket } from '../server/guacSocket.js';
import { FrameEncoder, type FrameSource, type StreamingOptions } from './frameEncoder.js';
import { SLOW_ROUND_TRIP_MS } from './encodePolicy.js';
import { FramePacing } from './framePacing.js';
import { FrameState, type CursorImage, type PendingFrame } from './frameState.js';
import type { DesktopInput, InputPolicy } from './input.js';
import { ThumbnailFrames } from './thumbnailFrames.js';
import type { LossyRegions } from './lossyRegions.js';
import { STEP_WAIT_MS, type SharedFrames, type StepMember } from './sharedFrames.js';
import { StreamIndexes } from './streamIndexes.js';
import { SyncWindow } from './syncWindow.js';
import { UserInput } from './userInput.js';

export type { FrameSource, StreamingOptions } from './frameEncoder.js';
export { MAX_FRAMES_IN_FLIGHT } from './syncWindow.js';

/** What a user works with: the session's framebuffer, and its desktop for input. */
export interface GuacUserSource extends FrameSource {
  readonly desktop: DesktopInput | undefined;
  /** RFB updates applied so far (which update a frame was taken after). */
  readonly updates: number;
  /** The desktop's cursor as last set, resent when a thumbnail becomes a full picture. */
  readonly cursorImage: CursorImage | undefined;
}

export interface GuacUserOptions extends InputPolicy {
  disableCopy: boolean;
  /** Mimetypes the browser named in the handshake's `image` instruction. */
  imageTypes: readonly string[];
  streaming: StreamingOptions;
  /** Close the browser with 776 when it sends nothing for this long; 0 disables. */
  idleTimeoutMs: number;
  keepAliveMs: number;
  /** Told how long each frame's images took to encode (GatewayOptions.onFrameEncoded). */
  onFrameEncoded?: ((encodeMs: number) => void) | undefined;
}

export interface GuacUserHooks {
  /** The user can take another frame (sync arrived or socket drained). */
  ready(user: GuacUser): void;
  /** The user is gone (browser left, error, or session end). */
  left(user: GuacUser): void;
  /** The shared stream of frames of the user's kind (undefined: no desktop yet). */
  step(user: GuacUser): SharedFrames<GuacUser> | undefined;
  /** The user leaves its shared stream (it is sent everything again on its own). */
  unstep(user: GuacUser): void;
}

export class GuacUser implements StepMember {
  private readonly state: FrameState;
  private readonly encoder: FrameEncoder;
  /** What the browser sends: input, delivery requests, keep-alive. */
  private readonly input: UserInput;
  /** Frames sent and not yet acknowledged, and the browser's lag they measure. */
  private readonly window = new SyncWindow();
  /** The shared stream this browser is in step with (undefined: its own pipeline). */
  private shared: SharedFrames<GuacUser> | undefined;
  /** The RFB update count (source.updates) when this browser's own pipeline took a frame. */
  private takenAt: number | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private readonly pacing = new FramePacing();
  private attention: AttentionLevel = 'full';
  /** Said `x-oc-passive` (for good): it follows the viewers' frames (StepMember). */
  passive = false;
  private readonly thumbnails: ThumbnailFrames;
  private paceTimer: NodeJS.Timeout | undefined;
  private encoding = false;
  private readonly streams = new StreamIndexes();
  private gone = false;

  constructor(
    private readonly socket: GuacSocket,
    private readonly source: GuacUserSource,
    private readonly options: GuacUserOptions,
    private readonly hooks: GuacUserHooks,
    private readonly logger: Logger,
  ) {
    this.state = new FrameState(source.width, source.height);
    this.encoder = new FrameEncoder(source, options.imageTypes, options.streaming, () =>
      this.streams.take(),
    );
    this.thumbnails = new ThumbnailFrames(source, options.imageTypes, () => this.streams.take());
    this.input = new UserInput(
      source,
      options,
      {
        send: (out) => this.socket.send(out),
        abort: (message, status) => this.abort(message, status),
        gone: () => this.gone,
        attention: () => this.attention,
        sync: (timestamp) => this.onSync(timestamp),
        disconnect: () => this.close(),
        setAttention: (level) => this.setAttention(level),
        becomePassive: () => this.becomePassive(),
      },
      logger,
    );
  }

  /**
   * Starts reading the browser's input (including anything it sent right after `connect`).
   * Called once the session has registered this user, so a browser that is already gone
   * leaves the session through the normal path.
   */
  start(): void {
    this.socket.onDrain(() => this.pump());
    this.socket.onClose((error) => {
      if (error !== undefined) this.logger.info({ err: error }, 'browser connection failed');
      this.leave();
    });
    this.socket.setHandler((instruction) => this.input.receive(instruction));
  }

  /** True when this browser has a frame in flight and more already waiting. */
  get lagging(): boolean {
    if (this.shared !== undefined) return this.shared.lagging;
    return (this.encoding || this.windowFull || this.paced) && this.state.hasPending;
  }

  /**
   * The earliest time (performance.now()) this browser takes its next frame, as far as pacing
   * goes (a past time when it is not paced).
   */
  get pacedUntil(): number {
    return this.shared !== undefined ? this.shared.pacedUntil : this.notBefore;
  }

  /** Which images this browser's frames are made of: users of one kind can share a stream. */
  get encoderKind(): string {
    return this.encoder.kind;
  }

  /** Smoothed time from sending a frame to its `sync`, ms (StepMember). */
  get roundTripMs(): number {
    return this.window.roundTripMs;
  }

  get imageTypes(): readonly string[] {
    return this.options.imageTypes;
  }

  /** Full attention with frames of `kind`, and not in a shared stream. */
  wantsStream(kind: string): boolean {
    return (
      !this.gone &&
      this.shared === undefined &&
      this.attention === 'full' &&
      this.encoder.kind === kind
    );
  }

  /** Joins `stream` if in step with it (StepMember; SharedFrames.join, found). */
  joinIfInStep(stream: SharedFrames<StepMember>): boolean {
    if (this.encoding || !this.wantsStream(this.encoder.kind)) return false;
    // A passive watcher never starts a stream: it would lead it (sharedFrames.ts).
    if (this.passive && stream.size === 0) return false;
    const pending = () => this.state.take();
    const lossy = this.encoder.lossySnapshot();
    const joined =
      stream.size === 0
        ? stream.found(this, this.takenAt, pending, lossy)
        : stream.join(this, this.takenAt, pending, lossy);
    if (!joined) return false;
    this.shared = stream as SharedFrames<GuacUser>;
    clearTimeout(this.settleTimer); // the stream settles what this browser shows now
    clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
    return true;
  }

  /** The update this browser's own frame being encoded was taken at (StepMember). */
  get ownFrameAt(): number | undefined {
    return this.encoding ? this.takenAt : undefined;
  }

  /**
   * Takes this browser's own next frame now, if it can (StepMember: the stream takes one), with
   * the stream's lag: its changed areas are then the stream's, encoded once for both.
   */
  takeAligned(lag: number): void {
    if (this.gone || this.encoding || this.windowFull || this.socket.isBackpressured) return;
    if (this.source.updating || !this.state.hasPending || this.source.framebuffer === undefined)
      return;
    clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
    this.startFrame(lag);
  }

  /** The browser could be sent a frame now (StepMember). */
  get canTakeFrame(): boolean {
    return !this.gone && !this.windowFull && !this.socket.isBackpressured;
  }

  /** A frame of the shared stream (StepMember). */
  deliver(out: readonly OutInstruction[]): void {
    if (this.gone) return;
    this.pacing.sent(performance.now());
    this.sendWithSync([...out]);
  }

  /** Out of step (StepMember): what the stream did not send becomes this browser's own. */
  fallBehind(frame: PendingFrame, lossy: LossyRegions): void {
    this.shared = undefined;
    this.takenAt = undefined; // it has not been sent what the stream took: not in step
    this.state.apply(frame);
    this.encoder.adoptLossy(lossy);
    this.scheduleSettle();
  }

  encodeFailed(): void {
    this.abort(
      'The gateway failed to encode a frame; reconnect, and report it if it repeats.',
      GuacStatus.SERVER_ERROR,
    );
  }

  /** One line of flow-control state for trace logs. */
  describe(): string {
    return `enc=${String(this.encoding)} unacked=${String(this.window.unacknowledged)} pending=${String(this.state.hasPending)} bp=${String(this.socket.isBackpressured)} upd=${String(this.source.updating)}`;
  }

  /** The session's desktop is (now) available: send its size, every pixel and the cursor. */
  fullRefresh(cursor: CursorImage | undefined): void {
    this.leaveStep();
    this.state.resize(this.source.width, this.source.height);
    if (cursor !== undefined) this.state.setCursor(cursor);
    this.pump();
  }

  // Changes reach a browser in step through the shared stream (VncSession tells both).
  markDirty(rect: Rect): void {
    if (this.shared === undefined) this.state.markDirty(rect);
  }

  addCopy(op: CopyOp): void {
    if (this.shared === undefined) this.state.addCopy(op);
  }

  resize(width: number, height: number): void {
    if (this.shared === undefined) this.state.resize(width, height);
  }

  setCursor(cursor: CursorImage): void {
    if (this.shared === undefined) this.state.setCursor(cursor);
  }

  sendClipboard(text: string): void {
    if (this.options.disableCopy || this.gone) return;
    this.socket.send(clipboardInstructions(this.streams.take(), text));
  }

  /** Ends this browser's connection with an `error` instruction. */
  abort(message: string, status: number): void {
    if (this.gone) return;
    this.socket.sendErrorAndClose(message, status);
    this.leave();
  }

  /** Ends this browser's connection quietly (session over, gateway closing). */
  close(): void {
    if (this.gone) return;
    this.socket.send([['disconnect']]);
    this.socket.close();
    this.leave();
  }

  /** Sends a frame if everything allows it; otherwise changes keep coalescing. */
  pump(): void {
    if (this.gone) return;
    const stream = this.wantsStream(this.encoder.kind) ? this.hooks.step(this) : undefined;
    if (stream !== undefined && !this.encoding) this.joinIfInStep(stream);
    if (this.shared !== undefined) {
      this.shared.pump();
      return;
    }
    if (this.encoding || this.windowFull) return;
    if (this.socket.isBackpressured || this.source.updating || !this.state.hasPending) return;
    if (this.source.framebuffer === undefined) return;
    // Beside a stream that is taking frames, this browser takes its own when the stream does
    // (takeAligned), so that both have seen the same changes and it can join; on its own only
    // once the stream has taken none for STEP_WAIT_MS.
    if (stream?.takingFrames === true) {
      this.paceTimer ??= setTimeout(() => {
        this.paceTimer = undefined;
        if (!this.gone) this.pump();
      }, STEP_WAIT_MS);
      return;
    }
    if (this.paced) {
      this.paceTimer ??= setTimeout(
        () => {
          this.paceTimer = undefined;
          if (this.gone) return;
          this.hooks.ready(this); // the session may have held back RFB updates for us
          this.pump();
        },
        Math.max(1, this.notBefore - performance.now()),
      );
      return;
    }
    this.startFrame();
  }

  /** Encodes and sends this browser's own next frame (`alignedLag`: see sendFrame). */
  private startFrame(alignedLag?: number): void {
    this.encoding = true;
    this.sendFrame(alignedLag).then(
      () => {
        this.encoding = false;
        this.scheduleSettle();
        // The next frame is encoded while the browser draws this one (up to the window).
        this.pump();
      },
      (error: unknown) => {
        this.encoding = false;
        this.logger.error({ err: error }, 'frame encoding failed');
        this.abort(
          'The gateway failed to encode a frame; reconnect, and report it if it repeats.',
          GuacStatus.SERVER_ERROR,
        );
      },
    );
  }

  /** `alignedLag`: the shared stream's, for a frame taken with it (its images are shared). */
  private async sendFrame(alignedLag?: number): Promise<void> {
    const frame = this.state.take();
    const started = performance.now();
    if (this.attention === 'thumbnail') {
      this.pacing.sent(started);
      // The thumbnail replaces the picture: no lossy pixel of it waits to be redrawn exactly.
      this.encoder.takeSettled(Number.POSITIVE_INFINITY);
      const out = await this.thumbnails.frame(frame);
      if (this.gone) return;
      this.options.onFrameEncoded?.(performance.now() - started);
      this.sendWithSync(out);
      return;
    }
    this.takenAt = this.source.updates;
    this.pacing.sent(
      started,
      frame.rects.reduce((sum, r) => sum + r.width * r.height, 0),
    );
    const lag = alignedLag ?? (this.attention === 'glance' ? SLOW_ROUND_TRIP_MS : this.roundTripMs);
    const out = await this.encoder.encode(frame, lag);
    if (this.gone) return;
    this.options.onFrameEncoded?.(performance.now() - started);
    this.sendWithSync(out);
  }

  /** Sends a frame's instructions with its `sync`, counted in flight until acknowledged. */
  private sendWithSync(out: OutInstruction[]): void {
    out.push(['sync', this.window.send()]);
    this.socket.send(out);
  }

  /** Wakes up when the next lossy region settles, to redraw it losslessly. */
  private scheduleSettle(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    const due = this.encoder.nextSettle();
    // In step, the shared stream settles what this browser shows.
    if (due === undefined || this.gone || this.shared !== undefined) return;
    this.settleTimer = setTimeout(() => this.settle(), Math.max(0, due - Date.now()));
    this.settleTimer.unref();
  }

  private settle(): void {
    this.settleTimer = undefined;
    // A frame being encoded may still change what is lossy; its end reschedules this.
    if (this.gone || this.encoding) return;
    for (const rect of this.encoder.takeSettled(Date.now())) this.state.markLossless(rect);
    this.pump();
    if (!this.encoding) this.scheduleSettle();
  }

  /** A `sync` acknowledges its frame and every earlier one; a stray one acknowledges nothing. */
  private onSync(timestamp: number): void {
    if (!this.window.acknowledge(timestamp)) return;
    this.hooks.ready(this);
    this.pump();
  }

  /** The next frame may not go out yet: the last was heavy, or this browser only glances. */
  private get paced(): boolean {
    return performance.now() < this.notBefore;
  }

  /** The earliest time (performance.now()) the next frame may go out. */
  private get notBefore(): number {
    return this.pacing.notBefore({
      attention: this.attention,
      passive: this.passive,
      thumbnailIntervalMs: this.thumbnails.intervalMs,
    });
  }

  /**
   * The bridge's recorder says it only records (packages/guac's attention.ts). Only this user's
   * own frames change: it stops leading any stream; the stream re-checks on its next pump.
   */
  private becomePassive(): void {
    this.passive = true;
    this.pump();
  }

  /** The browser says how closely it looks; coming back to `full` sends what waits at once. */
  private setAttention(level: AttentionLevel): void {
    const was = this.attention;
    this.attention = level;
    if (level === was) return;
    if (this.shared !== undefined && level !== 'thumbnail') this.repaintWhole(false);
    if (level === 'thumbnail' || was === 'thumbnail') this.repaintWhole(level === 'thumbnail');
    if (level === 'full' && this.paceTimer !== undefined && !this.paced) {
      clearTimeout(this.paceTimer);
      this.paceTimer = undefined;
      this.hooks.ready(this);
      this.pump();
    }
  }

  /**
   * Everything is sent again: as a thumbnail (entering), or at the desktop's own size with the
   * cursor (leaving a thumbnail), once there is a desktop to send.
   */
  private repaintWhole(toThumbnail: boolean): void {
    this.leaveStep();
    this.thumbnails.reset();
    if (this.source.framebuffer === undefined) return; // fullRefresh will, once connected
    this.state.resize(this.source.width, this.source.height);
    const cursor = this.source.cursorImage;
    if (!toThumbnail && cursor !== undefined) this.state.setCursor(cursor);
    this.pump();
  }

  /** Leaves the shared stream, if in it: this browser's own pipeline takes over from scratch. */
  private leaveStep(): void {
    if (this.shared === undefined) return;
    this.hooks.unstep(this);
    this.shared = undefined;
    this.encoder.resetLossy();
  }

  /** As many frames as the flow-control window allows are waiting for their `sync`. */
  private get windowFull(): boolean {
    return this.window.full;
  }

  private leave(): void {
    if (this.gone) return;
    this.gone = true;
    this.input.stop();
    clearTimeout(this.settleTimer);
    clearTimeout(this.paceTimer);
    this.hooks.left(this);
  }
}
