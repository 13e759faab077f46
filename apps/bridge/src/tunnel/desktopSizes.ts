// Each desktop's size, as the bridge decides and applies it (desktopConnections.ts asks; see
// desktops/desktopSize.ts): the size decided for a new connection (the operator's --desktop-size,
// else the desktop's provider: its owner's layout or the record's fixed size), a newly decided
// size checked and applied (VNC: resized at once through a connection of the bridge's own,
// vncResizer.ts; RDP: a `size` over the connection's tunnels, said again until the desktop
// reports a size), the size each desktop last reported (for the layout editor and joins), and
// the size it had before the bridge first resized it, to go back to when nothing decides its
// size any more (a layout cleared).
import type { Logger } from 'pino';
import {
  desktopSizeSchema,
  describeSize,
  sameSize,
  type DesktopSize,
  type DesktopSizeProvider,
} from '../desktops/desktopSize.js';
import type { TunnelTarget } from './tunnelSession.js';
import {
  RESIZE_TIMEOUT_MS,
  resizeVncDesktop,
  type ResizeOutcome,
  type VncResizeOutcome,
} from './vncResizer.js';

/** How often an RDP resize is said again until the desktop reports a size. */
const RDP_RESIZE_RESEND_MS = 1_000;

type SizeWaiter = (size: DesktopSize) => void;

export interface DesktopSizesOptions {
  handshakeTimeoutMs: number;
  /** The operator's size (--desktop-size); wins over everything. */
  operatorSize?: DesktopSize | undefined;
  /** The desktop's wanted size, e.g. from its owner's saved layout. */
  desiredDesktopSize?: DesktopSizeProvider | undefined;
  logger: Logger;
}

/** Where a resize goes (desktopConnections.ts knows the desktop's connection). */
export interface ResizePlace {
  /** The running connection's target, if there is one. */
  target: TunnelTarget | undefined;
  /** Without one: a target for a short connection of the bridge's own. */
  placed(): Promise<TunnelTarget>;
  /** Sends an RDP `size` over the tunnels on the connection now; false when none took it. */
  sizeSender(): (size: DesktopSize) => boolean;
}

export class DesktopSizes {
  private readonly seen = new Map<string, DesktopSize>();
  /**
   * The size each desktop had before the bridge first resized it (its own: the server's, or the
   * local desktop's start size), kept in memory until it is restored.
   */
  private readonly ownSizes = new Map<string, DesktopSize>();
  private readonly waiters = new Map<string, Set<SizeWaiter>>();

  constructor(private readonly options: DesktopSizesOptions) {}

  /** The desktop reported its size (`size` for layer 0) on one of its tunnels. */
  saw(desktopId: string, size: DesktopSize): void {
    this.seen.set(desktopId, size);
    for (const waiter of this.waiters.get(desktopId) ?? []) waiter(size);
  }

  /** The desktop's size as the bridge last saw it. */
  last(desktopId: string): DesktopSize | undefined {
    return this.seen.get(desktopId);
  }

  /**
   * A newly decided size, checked: a valid size to apply, or the outcome when none is applied
   * (not a desktop size; the operator's --desktop-size stays).
   */
  check(size: DesktopSize): { apply: DesktopSize } | { outcome: ResizeOutcome } {
    const valid = desktopSizeSchema.safeParse(size);
    if (!valid.success) {
      return {
        outcome: {
          applied: false,
          reason: `Not a desktop size: ${valid.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}.`,
        },
      };
    }
    const operator = this.options.operatorSize;
    if (operator !== undefined) {
      return {
        outcome: {
          applied: false,
          reason: `The operator fixed the desktop size at ${describeSize(operator)} (--desktop-size / OC_DESKTOP_SIZE).`,
          size: operator,
        },
      };
    }
    return { apply: valid.data };
  }

  /**
   * The size to go back to when nothing decides the desktop's size any more: the operator's or
   * the provider's (a record's fixed size) when one still decides, else the desktop's own.
   */
  async toRestore(desktopId: string): Promise<DesktopSize | undefined> {
    return (await this.decided(desktopId)) ?? this.ownSizes.get(desktopId);
  }

  /** The desktop's own size was given back: a later resize remembers it afresh. */
  restored(desktopId: string): void {
    this.ownSizes.delete(desktopId);
  }

  /** Applies a checked size; the first resize remembers the desktop's own size. */
  async apply(desktopId: string, size: DesktopSize, place: ResizePlace): Promise<ResizeOutcome> {
    const seenBefore = this.seen.get(desktopId);
    const { before, ...outcome } = await this.resize(desktopId, size, place);
    // The first resize remembers the desktop's own size (a VNC resize saw it on its own
    // connection, fresher than the last size a window saw).
    const own = before ?? seenBefore;
    if (!this.ownSizes.has(desktopId) && own !== undefined && !sameSize(own, size))
      this.ownSizes.set(desktopId, own);
    return outcome;
  }

  /** The size a new connection opens at: the operator's, else the provider's, if any. */
  async decided(desktopId: string): Promise<DesktopSize | undefined> {
    if (this.options.operatorSize !== undefined) return this.options.operatorSize;
    const provider = this.options.desiredDesktopSize;
    if (provider === undefined) return undefined;
    try {
      const wanted = await provider(desktopId);
      if (wanted === undefined) return undefined;
      const valid = desktopSizeSchema.safeParse(wanted);
      if (valid.success) return valid.data;
      this.options.logger.warn(
        { wanted: `${String(wanted.width)}x${String(wanted.height)}` },
        'the desired desktop size is out of range; keeping the current size',
      );
      return undefined;
    } catch (err) {
      // A broken layout must not keep the person off their desktop: keep its current size.
      this.options.logger.warn({ err }, 'the desired desktop size could not be read');
      return undefined;
    }
  }

  private async resize(
    desktopId: string,
    size: DesktopSize,
    place: ResizePlace,
  ): Promise<VncResizeOutcome> {
    const { logger } = this.options;
    const target = place.target ?? (await place.placed());
    const { connection } = target;
    if (connection.protocol === 'vnc') {
      return resizeVncDesktop(
        {
          guacd: target.guacd,
          connection,
          handshakeTimeoutMs: this.options.handshakeTimeoutMs,
        },
        size,
        logger,
      );
    }
    // RDP: guacd sends a Display Update for any user's `size` (its resize-method).
    const current = this.seen.get(desktopId);
    if (sameSize(current, size)) return { applied: true, size };
    const sendSize = place.sizeSender();
    const reported = this.nextSize(desktopId);
    const send = () => sendSize(size);
    if (!send()) {
      reported.cancel();
      return {
        applied: false,
        reason: 'Nobody has this desktop open; its next connection opens at the decided size.',
      };
    }
    // guacd drops a Display Update while the session's display channel is still coming up
    // (right after a connect, seen under load): say it again until the desktop reports a size.
    const resend = setInterval(send, RDP_RESIZE_RESEND_MS);
    const reached = await reported.promise.finally(() => clearInterval(resend));
    if (reached === undefined) {
      return {
        applied: false,
        reason: `The RDP server did not take the size ${describeSize(size)} within ${RESIZE_TIMEOUT_MS / 1000} s.`,
      };
    }
    // guacd rounds RDP widths down to an even number: report what the desktop took.
    logger.info({ size: describeSize(reached) }, 'desktop resized');
    return { applied: true, size: reached };
  }

  /** The next size the desktop reports, or undefined after the resize timeout. */
  private nextSize(desktopId: string): {
    promise: Promise<DesktopSize | undefined>;
    cancel(): void;
  } {
    let settle: (size: DesktopSize | undefined) => void = () => undefined;
    const promise = new Promise<DesktopSize | undefined>((resolve) => (settle = resolve));
    const waiters = this.waiters.get(desktopId) ?? new Set<SizeWaiter>();
    this.waiters.set(desktopId, waiters);
    const done = (size: DesktopSize | undefined) => {
      clearTimeout(timer);
      waiters.delete(done);
      if (waiters.size === 0) this.waiters.delete(desktopId);
      settle(size);
    };
    const timer = setTimeout(() => done(undefined), RESIZE_TIMEOUT_MS);
    waiters.add(done);
    return { promise, cancel: () => done(undefined) };
  }
}
