// Interactive overlays (draw_overlay click_through: false): they catch the person's clicks
// instead of the desktop. Finding the topmost one under a desktop pixel (over the few
// interactive overlays, listed once per store change, not over all 10,000), and the filter the
// viewer's mouse and touch bindings put between the person and the desktop: a press that starts
// on an interactive overlay — and its release, wherever it happens — never reaches the desktop;
// moves and the wheel always do, and a button the desktop already holds is always released.
// The mouse_click event with the overlay's id is reported by the UI event stream (uiEvents.ts),
// hit-tested with the same function at the same desktop pixel. While the person has taken over,
// nothing catches: their clicks all go to the desktop. Nor when the interactive overlays cover
// most of what this window shows (coverLimit.ts): the AI cannot take the desktop from the person
// with one big catching box, or many.
import type { Overlay } from '@overlay-companion/protocol';
import { overlayStore } from '../store/overlays.js';
import { viewportStore } from '../store/viewport.js';
import { takeOverStore } from '../takeover/personActivity.js';
import { visibleDesktopRect, type Point, type RectLike } from '../viewport/viewport.js';
import { CoverGrid } from './coverLimit.js';

const interactiveLists = new WeakMap<readonly Overlay[], readonly Overlay[]>();

/** The interactive overlays of `overlays`, in drawing order (made once per array). */
export function interactiveOf(overlays: readonly Overlay[]): readonly Overlay[] {
  let list = interactiveLists.get(overlays);
  if (list === undefined) {
    list = overlays.filter((o) => !o.click_through && o.bounds.width > 0 && o.bounds.height > 0);
    interactiveLists.set(overlays, list);
  }
  return list;
}

/** The topmost interactive overlay holding desktop pixel `p`; click-through ones never count. */
export function interactiveOverlayAt(
  p: Point,
  overlays: readonly Overlay[] = overlayStore.getState().overlays,
): Overlay | undefined {
  const list = interactiveOf(overlays);
  for (let i = list.length - 1; i >= 0; i--) {
    const b = list[i]?.bounds;
    if (b && p.x >= b.x && p.y >= b.y && p.x < b.x + b.width && p.y < b.y + b.height)
      return list[i];
  }
  return undefined;
}

const coverCache = new WeakMap<readonly Overlay[], { key: string; exceeds: boolean }>();

/**
 * True when the interactive overlays of `overlays` together cover more than the limit of the
 * desktop rectangle `visible` (coverLimit.ts); worked out once per overlay list and rectangle.
 */
export function interactiveCoverExceeds(overlays: readonly Overlay[], visible: RectLike): boolean {
  const list = interactiveOf(overlays);
  if (list.length === 0 || visible.width <= 0 || visible.height <= 0) return false;
  const key = `${visible.x},${visible.y},${visible.width},${visible.height}`;
  const cached = coverCache.get(list);
  if (cached?.key === key) return cached.exceeds;
  const grid = new CoverGrid(visible);
  for (const o of list) grid.add(o.bounds.x, o.bounds.y, o.bounds.width, o.bounds.height);
  const exceeds = grid.exceeds();
  coverCache.set(list, { key, exceeds });
  return exceeds;
}

/**
 * The interactive overlay that catches a press at desktop pixel `p` now, if any. None while the
 * person has taken over: then every click is theirs and goes to the desktop — the AI cannot keep
 * the person from their own desktop by covering it with an interactive overlay. None either
 * while interactive overlays cover most of what this window shows, for the same reason.
 */
export function catchingOverlayAt(p: Point): Overlay | undefined {
  if (takeOverStore.getState().takenOver) return undefined;
  const { overlays } = overlayStore.getState();
  const visible = visibleDesktopRect(viewportStore.getState().viewport);
  if (interactiveCoverExceeds(overlays, visible)) return undefined;
  return interactiveOverlayAt(p, overlays);
}

/**
 * The desktop pixel under a point of the display element (CSS pixels from its top-left, as
 * Guacamole.Mouse reports them): what sendMouseState(state, true) sends the desktop.
 */
export function displayPointToDesktop(x: number, y: number, scale: number): Point {
  const s = scale > 0 ? scale : 1;
  return { x: Math.floor(x / s), y: Math.floor(y / s) };
}

/** The part of Guacamole.Mouse.State the filter reads and writes. */
export interface MouseStateLike {
  x: number;
  y: number;
  left: boolean;
  middle: boolean;
  right: boolean;
  up: boolean;
  down: boolean;
}

const CLICK_BUTTONS = ['left', 'middle', 'right'] as const;

/**
 * One per input binding. `filter` takes each state the person's mouse (or finger) produced and
 * the desktop pixel it is at, and returns the state the desktop should get — buttons pressed on
 * an interactive overlay held back — or null when that would tell the desktop nothing new.
 */
export class ClickCatcher {
  readonly #caught = { left: false, middle: false, right: false };
  readonly #held = { left: false, middle: false, right: false };
  #lastSent: MouseStateLike | null = null;
  readonly #at: (p: Point) => Overlay | undefined;

  constructor(at: (p: Point) => Overlay | undefined = catchingOverlayAt) {
    this.#at = at;
  }

  filter(state: MouseStateLike, desktop: Point): MouseStateLike | null {
    const pressed = CLICK_BUTTONS.filter((b) => state[b] && !this.#held[b]);
    if (pressed.length > 0 && this.#at(desktop) !== undefined) {
      for (const b of pressed) this.#caught[b] = true;
    }
    const out: MouseStateLike = {
      x: state.x,
      y: state.y,
      left: state.left && !this.#caught.left,
      middle: state.middle && !this.#caught.middle,
      right: state.right && !this.#caught.right,
      up: state.up,
      down: state.down,
    };
    for (const b of CLICK_BUTTONS) {
      this.#held[b] = state[b];
      if (!state[b]) this.#caught[b] = false; // released: the next press is judged afresh
    }
    const last = this.#lastSent;
    if (
      last !== null &&
      last.x === out.x &&
      last.y === out.y &&
      last.left === out.left &&
      last.middle === out.middle &&
      last.right === out.right &&
      last.up === out.up &&
      last.down === out.down
    )
      return null;
    this.#lastSent = out;
    return out;
  }
}
