// Tells "the screen did not change" from "nothing arrives at all". The embedded gateway keeps a
// still desktop's link alive with a small frame every ~2 s (its VNC probe, see the gateway's
// silenceWatch.ts), so behind it a long gap between drawn frames means the link is silent; Apache
// guacd sends no frames while nothing changes, so behind it a gap means nothing. The cadence is
// learnt from the frames themselves: a run of KEEP_ALIVE_RUN gaps each 1.5–3.5 s long is that
// keep-alive's signature (a busy screen's gaps are far shorter, a still guacd screen has none —
// measured with guacd 1.6 for VNC and RDP), and from then on this connection is expected to
// keep sending.
import { ProtocolError } from '@overlay-companion/protocol';

export const KEEP_ALIVE_MIN_GAP_MS = 1500;
export const KEEP_ALIVE_MAX_GAP_MS = 3500;
const KEEP_ALIVE_RUN = 3;
/**
 * With keep-alive frames expected, a picture whose last frame is older than this is not known
 * to be current (two missed keep-alives): screenshots and "stable" are refused meanwhile.
 */
export const FRAME_SILENCE_MS = 5000;

export class FrameCadence {
  #lastFrameAt = 0;
  #seen = false;
  #run = 0;
  #keepAlive = false;

  /** A frame was drawn at `at` (epoch ms). */
  frame(at: number): void {
    if (this.#seen) {
      const gap = at - this.#lastFrameAt;
      if (gap >= KEEP_ALIVE_MIN_GAP_MS && gap <= KEEP_ALIVE_MAX_GAP_MS) {
        this.#run += 1;
        if (this.#run >= KEEP_ALIVE_RUN) this.#keepAlive = true;
      } else if (gap > KEEP_ALIVE_MAX_GAP_MS || gap >= 200) {
        // Short bursts (a busy screen) neither build nor break a run; other gaps break it.
        this.#run = 0;
      }
    }
    this.#lastFrameAt = at;
    this.#seen = true;
  }

  /** Epoch ms of the last drawn frame (0 before the first). */
  get lastFrameAt(): number {
    return this.#lastFrameAt;
  }

  /** Whether this connection sends frames while the screen is still. */
  get keepAlive(): boolean {
    return this.#keepAlive;
  }

  /**
   * How long frames have been missing beyond what the connection promises: undefined while
   * the picture is known to be current (or the connection makes no such promise).
   */
  silentForMs(now: number): number | undefined {
    if (!this.#keepAlive) return undefined;
    const age = now - this.#lastFrameAt;
    return age > FRAME_SILENCE_MS ? age : undefined;
  }
}

/** Retry after this long: the desktop server closes a silent link within a few seconds. */
export const SILENCE_RETRY_MS = 3000;

/** For a tool that would otherwise answer from a picture not known to be current. */
export function framesStoppedError(silentForMs: number): ProtocolError {
  return new ProtocolError(
    'viewer_unavailable',
    `No frame has arrived from the remote desktop for ${(silentForMs / 1000).toFixed(1)} s although its link sends one every few seconds: the desktop stopped answering, so the picture may be out of date. The viewer reconnects when the desktop server gives up on it. Retry in ${SILENCE_RETRY_MS / 1000} s.`,
    SILENCE_RETRY_MS,
  );
}

/** For a wait whose display went away (the connection dropped or was replaced). */
export function displayLostError(): ProtocolError {
  return new ProtocolError(
    'viewer_unavailable',
    `The viewer lost the remote desktop during the wait, so whether the screen changed is unknown; it reconnects by itself. Retry in ${SILENCE_RETRY_MS / 1000} s.`,
    SILENCE_RETRY_MS,
  );
}
