// Notices a VNC server that has gone silent. An incremental FramebufferUpdateRequest is answered
// only when something changes, so a still desktop and a dead link look the same from the
// outside; this watch tells them apart. After `probeAfterMs` with no frame from the server it
// sends a probe the server must answer at once (the owner sends a non-incremental request for one
// pixel), and when `deadlineMs` more pass with no byte at all since, it calls `silent` once and
// stops. Any byte from the server (`heard`) counts as life: a slow link still delivering a large
// update is alive. But only a frame (`drew`) stops the probes: the probe's answer is the small
// frame that tells every browser the picture is still current, and a server busy answering
// other messages (input fences, clipboard) must still send one every probeAfterMs.

export interface SilenceWatchOptions {
  /** Quiet time before a probe is sent. */
  probeAfterMs: number;
  /** Time the server has to answer the probe. */
  deadlineMs: number;
  probe: () => void;
  /** Called once, with how long nothing arrived. */
  silent: (silentForMs: number) => void;
  now?: () => number;
}

/** Defaults: a dead link is noticed within 2 + 4 s (plus one tick), well inside the browser's 15 s. */
export const SILENCE_PROBE_AFTER_MS = 2000;
export const SILENCE_DEADLINE_MS = 4000;

export class SilenceWatch {
  private lastHeard: number;
  private lastDrawn: number;
  private probeSentAt: number | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly options: SilenceWatchOptions) {
    this.now = options.now ?? Date.now;
    this.lastHeard = this.now();
    this.lastDrawn = this.lastHeard;
    const tickMs = Math.max(10, Math.min(options.probeAfterMs, options.deadlineMs) / 4);
    this.timer = setInterval(() => this.tick(), tickMs);
    this.timer.unref();
  }

  /** Something arrived from the server. */
  heard(): void {
    this.lastHeard = this.now();
  }

  /** A whole frame (FramebufferUpdate) arrived: the probe, if any, is answered. */
  drew(): void {
    this.lastHeard = this.now();
    this.lastDrawn = this.lastHeard;
    this.probeSentAt = undefined;
  }

  /** Milliseconds since the server last sent anything. */
  get quietForMs(): number {
    return this.now() - this.lastHeard;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const now = this.now();
    if (this.probeSentAt !== undefined) {
      if (now - Math.max(this.probeSentAt, this.lastHeard) >= this.options.deadlineMs) {
        this.stop();
        this.options.silent(now - this.lastHeard);
      }
      return;
    }
    if (now - this.lastDrawn >= this.options.probeAfterMs) {
      this.probeSentAt = now;
      this.options.probe();
    }
  }
}
