// A browser's flow-control window: the frames it has been sent and has not yet acknowledged with
// `sync` (at most MAX_FRAMES_IN_FLIGHT), each frame's `sync` timestamp, and the smoothed time
// from sending a frame to its `sync` — the browser's lag, which sets the quality of its lossy
// images (encodePolicy.ts).

/**
 * Frames a browser may have unacknowledged. Two lets the gateway encode the next frame while
 * the browser decodes and draws the last one, instead of idling through every round trip;
 * beyond that frames would only queue in the browser.
 */
export const MAX_FRAMES_IN_FLIGHT = 2;

export class SyncWindow {
  /** Frames sent and not yet acknowledged, oldest first. */
  private readonly inFlight: { timestamp: number; sentAt: number }[] = [];
  private lastTimestamp = 0;
  /** Smoothed time from sending a frame to its `sync`, ms (0 until the first one). */
  roundTripMs = 0;

  /** As many frames as the window allows are waiting for their `sync`. */
  get full(): boolean {
    return this.inFlight.length >= MAX_FRAMES_IN_FLIGHT;
  }

  /** Frames waiting for their `sync` (for trace logs). */
  get unacknowledged(): number {
    return this.inFlight.length;
  }

  /** A frame goes out now: its `sync` timestamp (increasing), counted in flight until acknowledged. */
  send(): number {
    const timestamp = Math.max(Date.now(), this.lastTimestamp + 1);
    this.lastTimestamp = timestamp;
    this.inFlight.push({ timestamp, sentAt: Date.now() });
    return timestamp;
  }

  /**
   * The browser returned `timestamp`: its frame and every earlier one are acknowledged. False
   * for a stray one, which acknowledges nothing.
   */
  acknowledge(timestamp: number): boolean {
    let acked: { sentAt: number } | undefined;
    while (this.inFlight.length > 0 && this.inFlight[0]!.timestamp <= timestamp)
      acked = this.inFlight.shift();
    if (acked === undefined) return false;
    const roundTrip = Date.now() - acked.sentAt;
    this.roundTripMs =
      this.roundTripMs === 0 ? roundTrip : 0.7 * this.roundTripMs + 0.3 * roundTrip;
    return true;
  }
}
