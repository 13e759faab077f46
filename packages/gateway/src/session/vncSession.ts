// One shared VNC connection (a guacd "connection"): the RFB client, the browsers joined to
// it, and the fan-out of framebuffer changes to each browser's own frame pipeline. Each RFB
// update is shaped once for everyone at its end (moves found, see updateShaper.ts) and counted
// into the screen's change rate (what the browsers' lossy choices read). Browsers at full
// attention that keep up (the recorder among them) share one encoded stream per kind of
// encoder (sharedFrames.ts), so each frame is encoded once for all of them. RFB update requests
// are paced by the browsers: the next one is made only while at least one browser is not
// lagging, so a session whose browsers all lag stops pulling pixels instead of buffering them.
// The RFB connection closes when the last browser leaves. Logs name the session by its label,
// never by its id (see connectionLabel.ts).
import type { Logger } from 'pino';
import {
  LOCAL_ENCODINGS,
  RfbClient,
  RfbError,
  describeRfbTarget,
  isLocalTarget,
  type RfbConnectOptions,
  type RfbTarget,
} from '../rfb/index.js';
import type { GuacSocket } from '../server/guacSocket.js';
import { rfbFailure } from '../server/errors.js';
import type { VncSettings } from '../server/vncArgs.js';
import type { EncodePool } from '../encode/encodePool.js';
import type { EncodedImage, EncodeMode } from '../encode/imageTypes.js';
import type { Rect } from '../encode/rect.js';
import type { ThumbnailRegion } from '../encode/scaleDown.js';
import { ChangeRate } from './changeRate.js';
import { connectionLabel } from './connectionLabel.js';
import { RegionEncodeCache } from './encodeCache.js';
import type { CursorImage } from './frameState.js';
import { SharedFrames } from './sharedFrames.js';
import { UpdateShaper } from './updateShaper.js';
import {
  GuacUser,
  type StreamingOptions,
  type GuacUserOptions,
  type GuacUserSource,
} from './guacUser.js';

export interface SessionOptions {
  id: string;
  /** Where the VNC server is, already checked against what this gateway may reach. */
  target: RfbTarget;
  settings: VncSettings;
  logger: Logger;
  connectTimeoutMs: number;
  /** How a silent VNC link is noticed (RfbConnectOptions.silenceProbeMs / silenceTimeoutMs). */
  silence?: { probeMs: number; timeoutMs: number } | undefined;
  userTimings: Pick<GuacUserOptions, 'idleTimeoutMs' | 'keepAliveMs' | 'onFrameEncoded'>;
  streaming: StreamingOptions;
  /** The worker threads that encode images (shared by the process's gateways). */
  pool: EncodePool;
  /** Called once when the session has ended (last browser left or the VNC side failed). */
  onEnd: (session: VncSession) => void;
  /** The RFB connector; tests of failure paths can aim it at fakes. */
  connect?: (options: RfbConnectOptions) => Promise<RfbClient>;
}

/** Delay between connection attempts when `autoretry` is set (guacd waits about 1 s). */
const RETRY_DELAY_MS = 1000;
/**
 * How long before the browsers may take their next frame the next RFB update is asked for,
 * while they are paced after a heavy frame (encodePolicy.ts's HEAVY_FRAME_INTERVAL_MS): its
 * pixels arrive in time for that frame, and the server gathers everything changed meanwhile
 * into one update. Asked for at once instead, a steady scroll came as two or three updates per
 * frame, each resending what the server draws rather than copies (measured: the stream bench's
 * desktop, 45 updates a second for 25 frames).
 */
const REQUEST_LEAD_MS = 10;
/** Longest wait for the first complete picture before showing what there is. */
const INITIAL_PICTURE_WAIT_MS = 3000;

export class VncSession implements GuacUserSource {
  readonly id: string;
  /** What logs call this session: not the id, which would let a log reader join it. */
  readonly label: string;
  private rfb: RfbClient | undefined;
  private readonly users = new Set<GuacUser>();
  private cursor: CursorImage | undefined;
  private ended = false;
  private readonly encodes: RegionEncodeCache;
  private readonly shaper = new UpdateShaper(0, 0);
  private readonly changes = new ChangeRate(0, 0);
  private updateDeferred = false;
  /** A paced request for the next update is due (REQUEST_LEAD_MS). */
  private requestTimer: NodeJS.Timeout | undefined;
  private midUpdate = false;
  /** RFB updates applied so far (GuacUserSource.updates). */
  updates = 0;
  /** The shared frame streams, by kind of encoder (FrameEncoder.kind). */
  private readonly streams = new Map<string, SharedFrames<GuacUser>>();
  /**
   * Pixels of the first full update still to arrive. Servers may answer the first request
   * with a pseudo-encoding-only update (TigerVNC sends the desktop size first); showing that
   * would flash a black screen, so frames wait until the screen has been covered once.
   */
  private initialPixelsMissing = Infinity;
  private initialTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SessionOptions) {
    this.id = options.id;
    this.label = connectionLabel(options.id);
    this.encodes = new RegionEncodeCache(options.pool);
  }

  get framebuffer(): Buffer | undefined {
    return this.rfb?.framebuffer;
  }
  get width(): number {
    return this.rfb?.width ?? 0;
  }
  get height(): number {
    return this.rfb?.height ?? 0;
  }
  get desktop(): RfbClient | undefined {
    return this.rfb;
  }
  /** True while the framebuffer holds a half-applied update or no complete picture yet. */
  get updating(): boolean {
    return this.midUpdate || this.initialPixelsMissing > 0;
  }
  encodeRegion(rect: Rect, mode: EncodeMode): Promise<EncodedImage> {
    const framebuffer = this.rfb?.framebuffer;
    if (framebuffer === undefined) return Promise.reject(new Error('no framebuffer yet'));
    return this.encodes.region(framebuffer, this.width, rect, mode);
  }
  encodeThumbnail(
    to: { width: number; height: number },
    region: ThumbnailRegion,
    mode: EncodeMode,
  ): Promise<EncodedImage> {
    const framebuffer = this.rfb?.framebuffer;
    if (framebuffer === undefined) return Promise.reject(new Error('no framebuffer yet'));
    const from = { width: this.width, height: this.height };
    return this.encodes.thumbnail(framebuffer, from, to, region, mode);
  }
  /** The desktop's cursor as last set (undefined until it sets one). */
  get cursorImage(): CursorImage | undefined {
    return this.cursor;
  }
  busy(rect: Rect, now: number): boolean {
    return this.changes.busy(rect, now);
  }
  encodeCursor(cursor: CursorImage): Promise<Buffer> {
    return this.encodes.cursor(cursor);
  }
  /** PNG encodes shared between browsers so far. */
  get sharedEncodes(): number {
    return this.encodes.hits;
  }
  get userCount(): number {
    return this.users.size;
  }

  /**
   * Adds a browser; it is sent the whole desktop as soon as there is one. `imageTypes` are
   * the mimetypes it named in the handshake's `image` instruction.
   */
  addUser(socket: GuacSocket, settings: VncSettings, imageTypes: readonly string[]): GuacUser {
    const user = new GuacUser(
      socket,
      this,
      {
        readOnly: settings.readOnly,
        disablePaste: settings.disablePaste,
        disableCopy: settings.disableCopy,
        disableDisplayResize: settings.disableDisplayResize,
        imageTypes,
        streaming: this.options.streaming,
        ...this.options.userTimings,
      },
      {
        ready: () => this.userReady(),
        left: (v) => this.userLeft(v),
        step: (v) => this.step(v),
        unstep: (v) => this.streams.forEach((stream) => stream.remove(v)),
      },
      this.options.logger.child({ connection: this.label }),
    );
    this.users.add(user);
    user.start();
    if (this.rfb !== undefined) user.fullRefresh(this.cursor);
    return user;
  }

  /** Connects to the VNC server (retrying as `autoretry` asks) and starts the update loop. */
  async start(): Promise<void> {
    const { settings, target, connectTimeoutMs } = this.options;
    const connect = this.options.connect ?? ((o: RfbConnectOptions) => RfbClient.connect(o));
    let rfb: RfbClient | undefined;
    for (let attempt = 0; rfb === undefined; attempt++) {
      try {
        rfb = await connect({
          ...target,
          password: settings.password,
          shared: true,
          connectTimeoutMs,
          ...(this.options.silence === undefined
            ? {}
            : {
                silenceProbeMs: this.options.silence.probeMs,
                silenceTimeoutMs: this.options.silence.timeoutMs,
              }),
          ...(isLocalTarget(target) ? { encodings: LOCAL_ENCODINGS } : {}),
        });
      } catch (error) {
        const retryable = error instanceof RfbError && error.code === 'unreachable';
        if (!retryable || attempt >= settings.autoretry || this.ended) return this.fail(error);
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
      }
    }
    if (this.ended) {
      rfb.close();
      return;
    }
    this.attach(rfb);
  }

  /** Ends the session for everyone (gateway shutdown). */
  close(): void {
    for (const user of [...this.users]) user.close();
    this.end();
  }

  private attach(rfb: RfbClient): void {
    this.rfb = rfb;
    this.options.logger.info(
      { connection: this.label, name: rfb.name, width: rfb.width, height: rfb.height },
      'VNC connected',
    );
    this.initialPixelsMissing = rfb.width * rfb.height;
    this.shaper.resize(rfb.width, rfb.height, rfb.framebuffer);
    this.changes.resize(rfb.width, rfb.height);
    // A server that never covers the whole screen must not leave browsers blank forever.
    this.initialTimer = setTimeout(() => {
      this.initialPixelsMissing = 0;
      if (!this.midUpdate) for (const v of this.users) v.pump();
    }, INITIAL_PICTURE_WAIT_MS);
    this.initialTimer.unref();
    // Changes reach the browsers at the update's end, shaped (frameEnd); browsers take no
    // frame meanwhile (`updating`).
    rfb.on('rect', (rect) => {
      this.midUpdate = true;
      this.encodes.invalidate();
      this.initialPixelsMissing -= rect.width * rect.height;
      this.shaper.rect(rect);
    });
    rfb.on('copy', (copy) => {
      this.midUpdate = true;
      this.encodes.invalidate();
      this.initialPixelsMissing -= copy.width * copy.height;
      this.shaper.copy(copy);
    });
    rfb.on('resize', ({ width, height }) => {
      this.encodes.invalidate();
      if (this.initialPixelsMissing > 0) this.initialPixelsMissing = width * height;
      this.shaper.resize(width, height, rfb.framebuffer);
      this.changes.resize(width, height);
      this.updates++;
      for (const stream of this.streams.values()) stream.resize(width, height);
      for (const v of this.users) v.resize(width, height);
    });
    rfb.on('cursor', (cursor) => {
      this.cursor = cursor;
      for (const stream of this.streams.values()) stream.setCursor(cursor);
      for (const v of this.users) v.setCursor(cursor);
    });
    rfb.on('frameEnd', () => this.frameEnd());
    rfb.on('clipboard', (text) => {
      for (const v of this.users) v.sendClipboard(text);
    });
    rfb.on('error', (error) => this.fail(error));
    rfb.on('close', () => {
      const where = describeRfbTarget(this.options.target);
      this.fail(new RfbError('closed', `The VNC server at ${where} closed the connection.`));
    });
    for (const v of this.users) v.fullRefresh(this.cursor);
    rfb.requestUpdate(false);
  }

  private frameEnd(): void {
    const framebuffer = this.rfb?.framebuffer;
    if (framebuffer !== undefined) {
      const now = Date.now();
      this.changes.beginUpdate();
      for (const op of this.shaper.finish(framebuffer)) {
        if (op.kind === 'copy') {
          for (const stream of this.streams.values()) stream.addCopy(op.op);
          for (const v of this.users) v.addCopy(op.op);
        } else {
          this.changes.changed(op.rect, now);
          for (const stream of this.streams.values()) stream.markDirty(op.rect);
          for (const v of this.users) v.markDirty(op.rect);
        }
      }
      this.updates++;
    }
    this.midUpdate = false;
    if (this.initialPixelsMissing <= 0) clearTimeout(this.initialTimer);
    for (const v of this.users) v.pump();
    this.requestIfWanted();
  }

  /** The shared stream of `user`'s kind of frames (made on first use). */
  private step(user: GuacUser): SharedFrames<GuacUser> | undefined {
    if (this.rfb === undefined || this.ended) return undefined;
    const kind = user.encoderKind;
    let stream = this.streams.get(kind);
    if (stream === undefined) {
      stream = new SharedFrames<GuacUser>(
        this,
        user.imageTypes,
        this.options.streaming,
        this.options.userTimings.onFrameEncoded,
        this.options.logger.child({ connection: this.label }),
        () => [...this.users].filter((v) => v.wantsStream(kind)),
      );
      stream.resize(this.width, this.height);
      this.streams.set(kind, stream);
    }
    return stream;
  }

  private userReady(): void {
    if (this.updateDeferred) this.requestIfWanted();
  }

  private requestIfWanted(): void {
    if (this.rfb === undefined || this.ended) return;
    const someoneKeepsUp = [...this.users].some((v) => !v.lagging);
    if (this.options.logger.isLevelEnabled('trace')) {
      const users = [...this.users].map((v) => v.describe());
      this.options.logger.trace({ connection: this.label, someoneKeepsUp, users }, 'update pacing');
    }
    if (!someoneKeepsUp) {
      this.updateDeferred = true;
      return;
    }
    this.updateDeferred = false;
    if (this.requestTimer !== undefined) return; // asked for when the pacing ends
    const pacedUntil = Math.min(
      ...[...this.users].filter((v) => !v.lagging).map((v) => v.pacedUntil),
    );
    const wait = pacedUntil - REQUEST_LEAD_MS - performance.now();
    if (wait >= 1) {
      this.requestTimer = setTimeout(() => {
        this.requestTimer = undefined;
        this.requestIfWanted();
      }, wait);
      return;
    }
    this.rfb.requestUpdate(true);
  }

  private userLeft(user: GuacUser): void {
    this.users.delete(user);
    for (const stream of this.streams.values()) stream.remove(user);
    if (this.users.size === 0) this.end();
    else if (this.updateDeferred) this.requestIfWanted();
  }

  private fail(error: unknown): void {
    if (this.ended) return;
    const failure = rfbFailure(error, describeRfbTarget(this.options.target));
    this.options.logger.warn(
      { connection: this.label, err: error, status: failure.status },
      'VNC session failed',
    );
    for (const user of [...this.users]) user.abort(failure.message, failure.status);
    this.end();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.initialTimer);
    clearTimeout(this.requestTimer);
    this.rfb?.close();
    this.options.onEnd(this);
  }
}
