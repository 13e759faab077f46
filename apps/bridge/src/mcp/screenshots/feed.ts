// Background screenshots for one MCP session (set_screenshot_frequency): the bridge asks the
// control viewer for a capture every interval and keeps the latest as the resource
// screenshot://latest, notifying a subscribed client with resources/updated. on_change (and
// periodic with only_on_change) keep a capture only when its pixels differ from the last one.
// Manual take_screenshot calls also refresh the latest capture. In a site of several bridges
// the session's desktop may have its control window on another bridge: the capture is then asked
// there, forwarded like any tool call (site/remoteControl.ts), and kept here, in the session.
// A forwarded capture that keeps failing on the other bridge's side — above all one larger than
// the site's NATS server takes (max_payload: a full-screen PNG of a busy 4K desktop is several
// MB) — is not skipped in silence: until a capture succeeds again, reading screenshot://latest
// fails with the reason and what to do instead, the subscribed client is told it changed, and
// the log says so at warn (once per reason).
import { createHash } from 'node:crypto';
import {
  ProtocolError,
  clampScreenshotInterval,
  type CallDecision,
  toolDefinitions,
  type TakeScreenshotViewerResult,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { ViewerHub } from '../../relay/viewerHub.js';
import { callBudgetMs } from '../../relay/timeouts.js';
import type { DesktopPlane } from '../desktopPlanes.js';
import type { RemoteControlRoute } from '../relayCall.js';

export const LATEST_SCREENSHOT_URI = 'screenshot://latest';

export interface Capture {
  data: string;
  mimeType: string;
  takenAt: number;
  meta: Omit<TakeScreenshotViewerResult, 'data'>;
}

export type FrequencyMode = 'manual' | 'periodic' | 'on_change';

/** Background captures are the whole desktop, PNG, at full scale. */
const BACKGROUND_ARGS = toolDefinitions.take_screenshot.input.parse({ full_screen: true });

/** Where the session's captures are asked now (a session can select another desktop). */
export interface CaptureTarget {
  /** The hub of the session's desktop (an idle one while it has none). */
  hub: ViewerHub;
  /** The session's desktop, and the site's route to control windows on other bridges. */
  plane?: DesktopPlane | undefined;
  remote?: RemoteControlRoute | undefined;
}

export function mimeTypeOf(format: 'png' | 'jpeg'): string {
  return format === 'png' ? 'image/png' : 'image/jpeg';
}

export class ScreenshotFeed {
  private latestCapture: Capture | undefined;
  private lastHash: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;
  private mode: FrequencyMode = 'manual';
  private intervalMs = clampScreenshotInterval(undefined);
  private onlyOnChange = false;
  private closed = false;

  constructor(
    /** Where captures are asked now: the session's desktop's hub, or its control window's bridge. */
    private readonly targetOf: () => CaptureTarget,
    private readonly onUpdated: (uri: string) => void,
    private readonly logger: Logger,
    /**
     * The one policy's answer for a capture now (decideCall for take_screenshot on the session's
     * desktop: the person's screenshots toggle), asked before every background capture and read.
     */
    private readonly decide: () => CallDecision = () => ({ decision: 'allow' }),
    /** A background capture was refused (once per refusal, not every tick): for the audit log. */
    private readonly refused: (message: string) => void = () => undefined,
  ) {}

  /** Whether the last tick was refused (so the next refusal is not recorded again). */
  private refusing = false;
  /** Why background captures fail now, when they fail for a reason that does not pass. */
  private failing: string | undefined;

  /**
   * Why background captures are failing now (undefined: they are not): reading
   * screenshot://latest answers this instead of a capture that is no longer the screen.
   */
  get failure(): string | undefined {
    return this.failing;
  }

  /** The latest capture, while the person still lets the AI see the screen. */
  get latest(): Capture | undefined {
    return this.decide().decision === 'deny' ? undefined : this.latestCapture;
  }

  get settings(): { mode: FrequencyMode; intervalMs: number } {
    return { mode: this.mode, intervalMs: this.intervalMs };
  }

  /** Applies a setting; returns the interval in use after clamping. */
  configure(mode: FrequencyMode, intervalMs: number | undefined, onlyOnChange: boolean): number {
    this.mode = mode;
    this.intervalMs = clampScreenshotInterval(intervalMs);
    this.onlyOnChange = mode === 'on_change' || onlyOnChange;
    this.schedule();
    return this.intervalMs;
  }

  /** Records a capture from take_screenshot (manual or background). */
  record(result: TakeScreenshotViewerResult): boolean {
    const hash = createHash('sha256').update(result.data).digest('hex');
    const changed = hash !== this.lastHash;
    this.lastHash = hash;
    const { data, ...meta } = result;
    this.latestCapture = { data, mimeType: mimeTypeOf(result.format), takenAt: Date.now(), meta };
    return changed;
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || this.mode === 'manual') return;
    this.timer = setTimeout(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    // A slow viewer must not pile captures up: skip a tick while one is still running.
    if (this.inFlight) return this.schedule();
    const target = this.targetOf();
    // No window here, and no site whose other bridges might hold one: nothing to ask.
    const reachable =
      target.hub.control !== undefined ||
      (target.plane !== undefined && target.remote !== undefined);
    if (!reachable) return this.schedule();
    const verdict = this.decide();
    if (verdict.decision === 'deny') {
      if (!this.refusing) this.refused(verdict.message);
      this.refusing = true;
      return this.schedule();
    }
    this.refusing = false;
    this.inFlight = true;
    try {
      const result = await this.capture(target);
      if (result !== undefined) {
        this.failing = undefined;
        const changed = this.record(result);
        if (!this.closed && (changed || !this.onlyOnChange)) this.onUpdated(LATEST_SCREENSHOT_URI);
      }
    } catch (err) {
      const lasting = lastingFailure(err, target);
      if (lasting === undefined) {
        // No viewer, a closed window, a timeout: try again next tick; the AI is not waiting.
        this.logger.debug({ err }, 'background screenshot failed');
      } else if (lasting !== this.failing) {
        this.failing = lasting;
        this.logger.warn({ reason: errorText(err) }, 'background screenshots are failing');
        if (!this.closed) this.onUpdated(LATEST_SCREENSHOT_URI);
      }
    } finally {
      this.inFlight = false;
      this.schedule();
    }
  }

  /** One capture from the control window, here or on the bridge holding it; none: no window. */
  private async capture({
    hub,
    plane,
    remote,
  }: CaptureTarget): Promise<TakeScreenshotViewerResult | undefined> {
    const options = { timeoutMs: callBudgetMs('take_screenshot', BACKGROUND_ARGS, 'allow') };
    if (hub.control !== undefined)
      return hub.call('take_screenshot', BACKGROUND_ARGS, 'allow', options);
    if (plane === undefined || remote === undefined) return undefined;
    const holder = await remote.holder(plane.desktopId);
    if (holder === undefined) return undefined;
    return remote.call(holder, plane, 'take_screenshot', BACKGROUND_ARGS, 'allow', options);
  }
}

/**
 * The words for the AI when a background capture failed for a reason that will not pass by
 * itself: the bridge holding the control window could not send it back (the answer larger than
 * the site's NATS server takes, or another fault of the forwarding, which arrives as a
 * system_error). Undefined for what passes (no window, a timeout, a window closing) and for a
 * capture asked here.
 */
function lastingFailure(err: unknown, target: CaptureTarget): string | undefined {
  if (target.hub.control !== undefined || target.remote === undefined) return undefined;
  if (!(err instanceof ProtocolError) || err.kind !== 'system_error') return undefined;
  return `Background screenshots (set_screenshot_frequency) are failing: ${err.message} Background captures are the whole desktop as PNG at full scale; meanwhile call take_screenshot with a region or a scale (or format jpeg) to see the screen.`;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
