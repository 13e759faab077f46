// What a call is told when no window can run it: where to open the viewer, or, while the bridge
// brings its headless viewer back (serve --headless-viewer), how long to wait before retrying;
// or, in a site of several bridges, that the site's bus is away (busAwayError).
import { ProtocolError } from '@overlay-companion/protocol';

/** What the hub asks the headless viewer's launcher (headless/headlessViewer.ts). */
export interface HeadlessLauncher {
  /** While it is being relaunched: about how long until its page is back, in ms. */
  backInMs(): number | undefined;
}

/** Chromium's end reaches the launcher a moment after its socket closed here: meanwhile, this. */
const HEADLESS_RELAUNCH_MS = 2_000;

export interface NoViewerOptions {
  /** Whether a window controls now, and how many windows are open. */
  hasControl: () => boolean;
  windowCount: () => number;
  /** Base URL the person opens, for the "no viewer" guidance. */
  viewerUrl: () => string;
  headlessLauncher?: () => HeadlessLauncher | undefined;
}

/**
 * A call for a desktop whose control window is not on this bridge while this bridge has lost the
 * site's bus (NATS): whether a window is open on another bridge cannot be known, so the call is
 * refused at once, without waiting for a lease or a holder, and nothing is sent to the desktop.
 */
export function busAwayError(awayMs: number, retryAfterMs: number): ProtocolError {
  return new ProtocolError(
    'viewer_unavailable',
    `This bridge has lost the site's bus (NATS) for ${Math.max(1, Math.round(awayMs / 1000))} s and the desktop's control window is not on this bridge, so it cannot be reached: nothing was sent to the desktop. The bridge reconnects by itself; retry in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s.`,
    retryAfterMs,
  );
}

export class NoViewer {
  /** When a headless control window last left (the bridge brings it back by itself). */
  private headlessLeftAt: number | undefined;

  constructor(private readonly options: NoViewerOptions) {}

  /** The headless control window just left. */
  headlessLeft(): void {
    this.headlessLeftAt = Date.now();
  }

  /** viewer_unavailable, with a wait when a headless viewer is coming back. */
  error(): ProtocolError {
    const back = this.headlessBack();
    if (back === undefined) return new ProtocolError('viewer_unavailable', this.guidance());
    return new ProtocolError(
      'viewer_unavailable',
      `The headless viewer stopped and the bridge is relaunching it; retry in ${Math.max(1, Math.ceil(back / 1000))} s.`,
      back,
    );
  }

  guidance(): string {
    if (this.options.windowCount() > 0)
      return `The person in charge of this desktop has no window open on it. They must open ${this.options.viewerUrl()} in a browser (and sign in) to let the AI act on it.`;
    return `No viewer is connected. Open ${this.options.viewerUrl()} in a browser (and sign in) to let the AI act on the desktop.`;
  }

  /** While the headless viewer is being brought back: about how long until it is. */
  private headlessBack(): number | undefined {
    if (this.options.hasControl() || this.headlessLeftAt === undefined) return undefined;
    const launcher = this.options.headlessLauncher?.();
    if (launcher === undefined) return undefined;
    const back = launcher.backInMs();
    if (back !== undefined) return back;
    return Date.now() - this.headlessLeftAt < HEADLESS_RELAUNCH_MS
      ? HEADLESS_RELAUNCH_MS
      : undefined;
  }
}
