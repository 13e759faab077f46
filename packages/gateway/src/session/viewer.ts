// One browser joined to a VNC session: its frame pipeline and its input. Frames are sent with
// flow control — no new frame while the browser's `sync` for the previous one is outstanding,
// and none while the socket is backpressured — and changes that arrive meanwhile are coalesced
// in this browser's FrameState, so a slow browser costs bounded memory and never slows others.
import type { Logger } from 'pino';
import { GuacStatus, type GuacInstruction } from '@overlay-companion/guac';
import {
  clipboardInstructions,
  copyInstruction,
  cursorInstructions,
  DEFAULT_LAYER,
  pngInstructions,
  type CopyOp,
  type OutInstruction,
} from '../encode/instructions.js';
import type { Rect } from '../encode/rect.js';
import type { GuacSocket } from '../server/guacSocket.js';
import { FrameState, type CursorImage } from './frameState.js';
import { InputError, InputHandler, type DesktopInput, type InputPolicy } from './input.js';

/** What a viewer reads pixels from: the session's current framebuffer. */
export interface FrameSource {
  readonly framebuffer: Buffer | undefined;
  readonly width: number;
  readonly height: number;
  /** True between the first rectangle of an RFB update and its end: pixels are half-new. */
  readonly updating: boolean;
  readonly desktop: DesktopInput | undefined;
  /** PNG of a region of the current framebuffer; pixels are copied out before it returns. */
  encodeRegion(rect: Rect): Promise<Buffer>;
  encodeCursor(cursor: CursorImage): Promise<Buffer>;
}

export interface ViewerOptions extends InputPolicy {
  disableCopy: boolean;
  /** Close the browser with 776 when it sends nothing for this long; 0 disables. */
  idleTimeoutMs: number;
  keepAliveMs: number;
  /** Told how long each frame's images took to encode (GatewayOptions.onFrameEncoded). */
  onFrameEncoded?: ((encodeMs: number) => void) | undefined;
}

export interface ViewerHooks {
  /** The viewer can take another frame (sync arrived or socket drained). */
  ready(viewer: Viewer): void;
  /** The viewer is gone (browser left, error, or session end). */
  left(viewer: Viewer): void;
}

export class Viewer {
  private readonly state: FrameState;
  private readonly input: InputHandler;
  private awaitingSync: number | undefined;
  private encoding = false;
  private lastTimestamp = 0;
  private nextStream = 1;
  private lastReceived = Date.now();
  private lastKeepAlive = Date.now();
  private readonly timer: NodeJS.Timeout;
  private gone = false;

  constructor(
    private readonly socket: GuacSocket,
    private readonly source: FrameSource,
    private readonly options: ViewerOptions,
    private readonly hooks: ViewerHooks,
    private readonly logger: Logger,
  ) {
    this.state = new FrameState(source.width, source.height);
    this.input = new InputHandler(
      () => source.desktop,
      options,
      () => source,
    );
    this.timer = setInterval(() => this.tick(), Math.min(options.keepAliveMs, 1000));
    this.timer.unref();
  }

  /**
   * Starts reading the browser's input (including anything it sent right after `connect`).
   * Called once the session has registered this viewer, so a browser that is already gone
   * leaves the session through the normal path.
   */
  start(): void {
    this.socket.onDrain(() => this.pump());
    this.socket.onClose((error) => {
      if (error !== undefined) this.logger.info({ err: error }, 'browser connection failed');
      this.leave();
    });
    this.socket.setHandler((instruction) => this.receive(instruction));
  }

  /** True when this browser has a frame in flight and more already waiting. */
  get lagging(): boolean {
    return (this.encoding || this.awaitingSync !== undefined) && this.state.hasPending;
  }

  /** One line of flow-control state for trace logs. */
  describe(): string {
    return `enc=${String(this.encoding)} sync=${String(this.awaitingSync)} pending=${String(this.state.hasPending)} bp=${String(this.socket.isBackpressured)} upd=${String(this.source.updating)}`;
  }

  /** The session's desktop is (now) available: send its size, every pixel and the cursor. */
  fullRefresh(cursor: CursorImage | undefined): void {
    this.state.resize(this.source.width, this.source.height);
    if (cursor !== undefined) this.state.setCursor(cursor);
    this.pump();
  }

  markDirty(rect: Rect): void {
    this.state.markDirty(rect);
  }

  addCopy(op: CopyOp): void {
    this.state.addCopy(op);
  }

  resize(width: number, height: number): void {
    this.state.resize(width, height);
  }

  setCursor(cursor: CursorImage): void {
    this.state.setCursor(cursor);
  }

  sendClipboard(text: string): void {
    if (this.options.disableCopy || this.gone) return;
    this.socket.send(clipboardInstructions(this.takeStream(), text));
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
    if (this.gone || this.encoding || this.awaitingSync !== undefined) return;
    if (this.socket.isBackpressured || this.source.updating || !this.state.hasPending) return;
    if (this.source.framebuffer === undefined) return;
    this.encoding = true;
    this.sendFrame().then(
      () => {
        this.encoding = false;
        // Nothing is outstanding only if the frame was empty; try again for the rest.
        if (this.awaitingSync === undefined) this.pump();
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

  private async sendFrame(): Promise<void> {
    const frame = this.state.take();
    const encodeStarted = performance.now();
    // Pixels are copied out synchronously here: the RFB client keeps decoding into the
    // framebuffer while sharp works.
    const regions = frame.rects.map((rect) => ({ rect, png: this.source.encodeRegion(rect) }));
    const cursor = frame.cursor;
    const [pngs, cursorPng] = await Promise.all([
      Promise.all(regions.map(({ png }) => png)),
      cursor === undefined ? undefined : this.source.encodeCursor(cursor),
    ]);
    if (this.gone) return;
    this.options.onFrameEncoded?.(performance.now() - encodeStarted);
    const out: OutInstruction[] = [];
    if (frame.size !== undefined)
      out.push(['size', DEFAULT_LAYER, frame.size.width, frame.size.height]);
    for (const op of frame.copies) out.push(copyInstruction(op));
    regions.forEach(({ rect }, i) => {
      const png = pngs[i];
      if (png !== undefined)
        out.push(...pngInstructions(this.takeStream(), DEFAULT_LAYER, rect.x, rect.y, png));
    });
    if (cursor !== undefined && cursorPng !== undefined) {
      const { width, height } = cursorSize(cursor);
      out.push(
        ...cursorInstructions(
          this.takeStream(),
          cursor.hotX,
          cursor.hotY,
          width,
          height,
          cursorPng,
        ),
      );
    }
    const timestamp = Math.max(Date.now(), this.lastTimestamp + 1);
    this.lastTimestamp = timestamp;
    out.push(['sync', timestamp]);
    this.awaitingSync = timestamp;
    this.socket.send(out);
  }

  private receive(instruction: GuacInstruction): void {
    if (this.gone) return;
    this.lastReceived = Date.now();
    try {
      switch (instruction.opcode) {
        case 'sync':
          this.onSync(instruction);
          return;
        case 'disconnect':
          this.close();
          return;
        default: {
          const reply = this.input.handle(instruction);
          if (reply.ack !== undefined) {
            this.socket.send([['ack', reply.ack.stream, reply.ack.message, reply.ack.status]]);
          }
        }
      }
    } catch (error) {
      if (error instanceof InputError) {
        this.abort(
          `Malformed "${instruction.opcode}" instruction: ${error.message}`,
          GuacStatus.CLIENT_BAD_REQUEST,
        );
        return;
      }
      // A bug of ours must end this browser's connection, never the whole gateway.
      this.logger.error({ err: error, opcode: instruction.opcode }, 'input handling failed');
      this.abort(
        'The gateway failed to handle input; reconnect, and report it if it repeats.',
        GuacStatus.SERVER_ERROR,
      );
    }
  }

  private onSync(instruction: GuacInstruction): void {
    const value = instruction.args[0];
    if (value === undefined || !/^\d+$/.test(value)) {
      throw new InputError(
        `"sync" needs the timestamp of the frame it acknowledges, got ${JSON.stringify(value ?? null)}.`,
      );
    }
    const timestamp = Number(value);
    // A sync for an older frame (or a stray one) acknowledges nothing new.
    if (this.awaitingSync === undefined || timestamp < this.awaitingSync) return;
    this.awaitingSync = undefined;
    this.hooks.ready(this);
    this.pump();
  }

  private tick(): void {
    if (this.gone) return;
    const now = Date.now();
    if (this.options.idleTimeoutMs > 0 && now - this.lastReceived > this.options.idleTimeoutMs) {
      this.abort(
        'The client sent nothing for too long (it must send nop or sync at least every few seconds).',
        GuacStatus.CLIENT_TIMEOUT,
      );
      return;
    }
    if (now - this.lastKeepAlive >= this.options.keepAliveMs) {
      this.lastKeepAlive = now;
      this.socket.send([['nop']]);
    }
  }

  private takeStream(): number {
    const stream = this.nextStream;
    this.nextStream = this.nextStream >= 1023 ? 1 : this.nextStream + 1;
    return stream;
  }

  private leave(): void {
    if (this.gone) return;
    this.gone = true;
    clearInterval(this.timer);
    this.hooks.left(this);
  }
}

/** A 0×0 cursor (the desktop hides it) is sent as one transparent pixel. */
function cursorSize(cursor: CursorImage): { width: number; height: number } {
  return cursor.width > 0 && cursor.height > 0 ? cursor : { width: 1, height: 1 };
}
