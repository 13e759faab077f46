// One recording's playback, outside React: Guacamole.SessionRecording fed the file through an
// in-memory tunnel (guacamole-common-js 1.5.0's Blob source is broken: it reads the size of a
// Blob it never stored, "Cannot read properties of undefined (reading 'size')"), driven by our
// own clock so it plays at 1×–16× (the library plays at real time only): every tick
// seeks forward by the time elapsed × the speed, one seek at a time, and "skip idle" moves the
// target past idle stretches. Positions are epoch milliseconds on the recording's clock (the
// `sync` timestamps guacd's format carries, the same clock as the event track); the library's own
// positions count from the first frame. Listeners hear every change of position or state.
import Guacamole from 'guacamole-common-js';
import { skipIdle, type Stretch } from './timeline.js';

export const SPEEDS = [1, 2, 4, 8, 16] as const;
export type Speed = (typeof SPEEDS)[number];

const TICK_MS = 50;
/** The recording is handed to the parser this much at a time, yielding between. */
const FEED_CHARS = 256 * 1024;

export interface PlaybackState {
  /** Epoch ms shown now. */
  at: number;
  /** Epoch ms of the first and last frame loaded. */
  start: number;
  end: number;
  playing: boolean;
  speed: Speed;
  skipIdle: boolean;
  loaded: boolean;
  error: string | null;
  /**
   * The recorded screen's size in desktop pixels: from the recording's first `size` of the
   * screen at once (the AI cards' marks need it before any frame is shown), then the display's.
   */
  width: number;
  height: number;
}

/**
 * A frame this short (keep-alives, a blinking cursor's rect and cfill) is not activity for "skip
 * idle"; any picture (an image, even of one typed letter) is longer.
 */
const TINY_FRAME_CHARS = 128;

/**
 * The frames of a Guacamole protocol recording: `first`, the timestamp (epoch ms) of its first
 * `sync` (where the library's positions count from), and `drawn`, those of the frames that drew
 * more than a tiny change.
 */
export function frameTimes(text: string): { first: number | null; drawn: number[] } {
  const drawn: number[] = [];
  let first: number | null = null;
  let previousEnd = 0;
  // `4.sync,<n>.<timestamp>` — base64 image data never holds '.' or ',', so this is exact there.
  const pattern = /4\.sync,\d+\.(\d+)[^;]*;/g;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const t = Number(match[1]);
    first ??= t;
    if (match.index - previousEnd > TINY_FRAME_CHARS) drawn.push(t);
    previousEnd = match.index + match[0].length;
  }
  return { first, drawn };
}

/**
 * Where a recording opened without a moment (from the list) is shown: its first frame that draws
 * a picture — Guacamole.SessionRecording draws nothing until it is seeked, and a recording may
 * begin with frames that draw nothing yet (black) — else its first frame, else `origin`.
 */
export function openingAt(
  frames: { first: number | null; drawn: number[] },
  origin: number,
): number {
  return frames.drawn[0] ?? frames.first ?? origin;
}

/**
 * The screen's size as the recording first sets it (its first `size` of layer 0), or 0 × 0 when
 * it sets none.
 */
export function screenSize(text: string): { width: number; height: number } {
  // `4.size,1.0,<n>.<width>,<n>.<height>;` — base64 image data never holds '.' or ','.
  const match = /4\.size,1\.0,\d+\.(\d+),\d+\.(\d+);/.exec(text);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : { width: 0, height: 0 };
}

/** Where a recording's playback starts: its first frame, paused, at the screen's first size. */
export function initialState(text: string, origin: number): PlaybackState {
  return {
    at: origin,
    start: origin,
    end: origin,
    playing: false,
    speed: 1,
    skipIdle: false,
    loaded: false,
    error: null,
    ...screenSize(text),
  };
}

/** Guacamole.Tunnel as it is at run time (the typings leave out setState and make it abstract). */
type RuntimeTunnel = Guacamole.Tunnel & {
  setState(state: Guacamole.Tunnel.State): void;
  oninstruction: ((opcode: string, args: unknown[]) => void) | null;
};

/**
 * A tunnel that plays `text` (a whole recording) into whoever connects, in slices cut after an
 * instruction's `;` so the page stays responsive, then closes — which the recording takes as
 * "loaded".
 */
function textTunnel(text: string): Guacamole.Tunnel {
  const tunnel = new (Guacamole.Tunnel as unknown as new () => RuntimeTunnel)();
  tunnel.connect = () => {
    const parser = new Guacamole.Parser();
    parser.oninstruction = (opcode, args) => tunnel.oninstruction?.(opcode, args);
    tunnel.setState(Guacamole.Tunnel.State.OPEN);
    let offset = 0;
    const feed = () => {
      if (tunnel.state !== Guacamole.Tunnel.State.OPEN) return;
      let end = Math.min(text.length, offset + FEED_CHARS);
      if (end < text.length) end = text.lastIndexOf(';', end) + 1 || text.length;
      if (end <= offset) end = text.length;
      parser.receive(text.slice(offset, end));
      offset = end;
      if (offset < text.length) setTimeout(feed, 0);
      else tunnel.setState(Guacamole.Tunnel.State.CLOSED);
    };
    feed();
  };
  tunnel.disconnect = () => tunnel.setState(Guacamole.Tunnel.State.CLOSED);
  return tunnel;
}

export class Playback {
  readonly recording: Guacamole.SessionRecording;
  private state: PlaybackState;
  private readonly listeners = new Set<(state: PlaybackState) => void>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private lastTick = 0;
  private seeking = false;
  /** Where the next seek goes once the one in flight ends. */
  private pending: number | null = null;
  private idle: readonly Stretch[] = [];

  /**
   * `text`: the recording (Guacamole protocol); `origin`: the epoch ms of its first frame (its
   * first `sync`).
   */
  constructor(
    text: string,
    private readonly origin: number,
  ) {
    this.recording = new Guacamole.SessionRecording(textTunnel(text));
    this.state = initialState(text, origin);
    this.recording.onprogress = (duration) => this.set({ end: origin + duration });
    this.recording.onload = () =>
      this.set({ loaded: true, end: origin + this.recording.getDuration() });
    this.recording.onerror = (message) => this.set({ error: message });
    this.recording.connect();
    // Not onseek: it reports the last frame's time, which stands still through a stretch
    // without frames; `at` is our clock, and the display catches up with it.
  }

  getState(): PlaybackState {
    return this.state;
  }

  subscribe(listener: (state: PlaybackState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The display's size changed (the player owns the display's onresize). */
  screenSized(width: number, height: number): void {
    if (width !== this.state.width || height !== this.state.height) this.set({ width, height });
  }

  /** The stretches "skip idle" jumps over. */
  setIdleStretches(stretches: readonly Stretch[]): void {
    this.idle = stretches;
  }

  play(): void {
    if (this.state.playing) return;
    if (this.state.at >= this.state.end) this.seek(this.state.start);
    this.lastTick = performance.now();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.set({ playing: true });
  }

  pause(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (this.state.playing) this.set({ playing: false });
  }

  toggle(): void {
    if (this.state.playing) this.pause();
    else this.play();
  }

  setSpeed(speed: Speed): void {
    this.set({ speed });
  }

  /** One step faster (+1) or slower (-1) through SPEEDS. */
  stepSpeed(direction: 1 | -1): void {
    const index = SPEEDS.indexOf(this.state.speed) + direction;
    const next = SPEEDS[Math.min(SPEEDS.length - 1, Math.max(0, index))];
    if (next !== undefined) this.setSpeed(next);
  }

  setSkipIdle(on: boolean): void {
    this.set({ skipIdle: on });
  }

  /** Shows epoch-ms `at` (clamped to what is loaded). */
  seek(at: number): void {
    const target = Math.min(this.state.end, Math.max(this.state.start, at));
    this.set({ at: target });
    if (this.seeking) {
      this.pending = target;
      return;
    }
    this.seeking = true;
    this.recording.seek(target - this.origin, () => {
      this.seeking = false;
      const next = this.pending;
      this.pending = null;
      if (next !== null) this.seek(next);
    });
  }

  dispose(): void {
    this.pause();
    this.listeners.clear();
    this.recording.abort();
  }

  private tick(): void {
    // While the display is behind, wait rather than pile up seeks; the time keeps counting.
    if (this.seeking) return;
    const now = performance.now();
    const elapsed = now - this.lastTick;
    this.lastTick = now;
    let target = this.state.at + elapsed * this.state.speed;
    if (this.state.skipIdle) target = skipIdle(target, this.idle);
    if (target >= this.state.end) {
      this.seek(this.state.end);
      if (this.state.loaded) this.pause();
      return;
    }
    this.seek(target);
  }

  private set(change: Partial<PlaybackState>): void {
    this.state = { ...this.state, ...change };
    for (const listener of this.listeners) listener(this.state);
  }
}
