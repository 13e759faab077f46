// What the page shows of one AI input call — the viewer's own cursor moved to the AI's pointer,
// the AI pointer, ripple and "AI is acting" indicator, the ai_action to the person's other
// windows — held until the desktop has confirmed the input (the call settled), or SHOW_WITHIN_MS
// for input that takes longer (typing, a drag, a paced click), then shown, and from then on at
// once. Why: showing costs the page a frame (style, layout, software raster on this 2-core
// machine) and the call's answer is still on its way through Chromium's network process, the
// bridge, the gateway and Xvnc meanwhile; shown after, a mouse_move's round trip is ~2.5 ms
// shorter at p50 (bench, paired runs). A held show is a few ms late, far below what a person sees.

/** Longest a running input goes unshown (a person does not notice less than ~100 ms). */
export const SHOW_WITHIN_MS = 50;
/**
 * How long after its call settled a call is shown. The page hears the receipt just after the
 * bridge wrote the AI client's answer, which is then still on its way to the client; shown at
 * once, it took the client's CPU (paired A/B, 140 calls each: mouse_move p50 7.7 → 6.5 ms).
 */
export const SHOW_AFTER_SETTLED_MS = 5;

/** False in a hidden page (a background tab): it paints nothing, and its timers are throttled. */
export function pageVisible(): boolean {
  return typeof document === 'undefined' || !document.hidden;
}

export class ShownLater {
  readonly #holds: boolean;
  /** Shows waiting for release; undefined once released (or dropped). */
  #queue: Array<() => void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #dropped = false;

  /**
   * `holds` false (a hidden page): everything is shown at once — there is no frame to keep off
   * the critical path, and a background tab's timers fire a second late, which would hold the
   * ai_action the person's other windows draw.
   */
  constructor(
    holds = pageVisible(),
    private readonly withinMs = SHOW_WITHIN_MS,
  ) {
    this.#holds = holds;
    this.#queue = holds ? [] : undefined;
  }

  /** True while shows wait (the call's input is not confirmed yet). */
  get held(): boolean {
    return this.#queue !== undefined;
  }

  /** Runs `show` now when released, else at the release (in the order asked). */
  show(show: () => void): void {
    if (this.#dropped) return;
    if (this.#queue === undefined) {
      show();
      return;
    }
    this.#queue.push(show);
    this.#timer ??= setTimeout(() => this.release(), this.withinMs);
  }

  /**
   * The call settled: what waits is shown SHOW_AFTER_SETTLED_MS later, then `after` runs (also
   * when everything was shown already).
   */
  settled(after: () => void): void {
    if (!this.#holds) {
      after();
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.release();
      after();
    }, SHOW_AFTER_SETTLED_MS);
  }

  /** The input has run SHOW_WITHIN_MS: show what waits, and anything later at once. */
  release(): void {
    const queue = this.#queue;
    this.#queue = undefined;
    clearTimeout(this.#timer);
    for (const show of queue ?? []) show();
  }

  /** The call failed before its input left: nothing it asked to show is shown. */
  drop(): void {
    this.#dropped = true;
    this.#queue = undefined;
    clearTimeout(this.#timer);
  }
}
