// Streams what the person does to the bridge as `event` messages, for subscribe_events: pointer
// moves (throttled) and clicks on the remote display, key presses while the display has the
// keyboard, the browser window gaining/losing focus, and screen changes (the dirty rectangle of
// drawn frames, throttled). Only the types the bridge's event_interest lists are sent; until a
// bridge sends one (older bridges never do), every type is sent, throttled.
import {
  keysymForCharacter,
  keysymForKey,
  tryParseKeyCombo,
  type EventType,
  type MouseButton,
  type PrivacyMask,
  type UiEvent,
} from '@overlay-companion/protocol';
import { DISPLAY_AREA_ATTRIBUTE } from '../display/guacBrowser.js';
import Guacamole from 'guacamole-common-js';
import type { Viewport } from '../viewport/viewport.js';
import { catchingOverlayAt, displayPointToDesktop } from '../overlay/interactive.js';
import type { FrameWatch } from './screen/frameWatch.js';
import { isMasked } from './screen/masks.js';

export const MOUSE_MOVE_INTERVAL_MS = 100;
export const SCREEN_CHANGE_INTERVAL_MS = 250;

/** Key name and keysym of a DOM key event, as press_key would name it; undefined to skip. */
export function keyOf(key: string): { key: string; keysym: number } | undefined {
  if (key === ' ') return { key: 'space', keysym: 0x20 };
  if ([...key].length === 1) {
    const keysym = keysymForCharacter(key);
    return keysym === undefined ? undefined : { key, keysym };
  }
  const parsed = tryParseKeyCombo(key);
  if (!parsed.ok || parsed.combo.modifiers.length > 0) return undefined;
  const keysym = keysymForKey(parsed.combo.key);
  return keysym === undefined ? undefined : { key: parsed.combo.key, keysym };
}

const BUTTONS: Readonly<Record<number, MouseButton>> = { 0: 'left', 1: 'middle', 2: 'right' };

export interface UiEventDeps {
  send: (event: UiEvent) => void;
  /** Types someone subscribed to; null = unknown, send all (see event_interest). */
  interest: () => readonly EventType[] | null;
  /**
   * Calls `listener` whenever `interest()` changes; returns the undo. Screen changes cost a
   * readback of the picture per drawn frame, so the frames are followed only while someone wants
   * screen_change (without this hook: always).
   */
  interestChanges?: (listener: () => void) => () => void;
  viewport: () => Viewport;
  frames: FrameWatch;
  /**
   * The person's privacy masks (desktop pixels): pointer events inside them are withheld, and
   * so are key presses after the person last clicked inside one (the keys go to what is there).
   */
  masks?: () => readonly PrivacyMask[];
}

/** Whether an event of `type` should be sent, given the bridge's interest (null = unknown). */
export function wanted(interest: readonly EventType[] | null, type: EventType): boolean {
  return interest === null || interest.includes(type);
}

/** A simple leading-edge throttle per event type. */
function throttle(intervalMs: number): () => boolean {
  let last = -Infinity;
  return () => {
    const now = Date.now();
    if (now - last < intervalMs) return false;
    last = now;
    return true;
  };
}

export class UiEventStream {
  readonly #deps: UiEventDeps;
  readonly #moveAllowed = throttle(MOUSE_MOVE_INTERVAL_MS);
  readonly #screenAllowed = throttle(SCREEN_CHANGE_INTERVAL_MS);
  #detachDisplay: (() => void) | null = null;
  /** The person's last click was inside a privacy mask: their typing goes there. */
  #typingIntoMask = false;

  constructor(deps: UiEventDeps) {
    this.#deps = deps;
  }

  /** Window focus and screen changes; returns the undo. */
  start(): () => void {
    const focus = () =>
      this.#emit({ type: 'window_focus', at: Date.now(), data: { focused: true } });
    const blur = () =>
      this.#emit({ type: 'window_focus', at: Date.now(), data: { focused: false } });
    // Keys count only while the remote display has the keyboard (they go to the desktop);
    // typing into the page's own controls is not the desktop's business.
    const key = (event: KeyboardEvent) => {
      if (event.repeat || !(event.target instanceof Element)) return;
      if (event.target.closest(`[${DISPLAY_AREA_ATTRIBUTE}]`) === null) return;
      const k = keyOf(event.key);
      if (k !== undefined) this.#emit({ type: 'key_press', at: Date.now(), data: k });
    };
    window.addEventListener('focus', focus);
    window.addEventListener('blur', blur);
    document.addEventListener('keydown', key, { capture: true, passive: true });
    let unsubscribeFrames: (() => void) | undefined;
    const followScreen = () => {
      const want = wanted(this.#deps.interest(), 'screen_change');
      if (want && unsubscribeFrames === undefined)
        unsubscribeFrames = this.#deps.frames.subscribe((sample) => {
          const d = sample.dirty;
          if (d === undefined || d.width < 1 || d.height < 1 || !this.#screenAllowed()) return;
          this.#emit({ type: 'screen_change', at: sample.at, data: { region: d } });
        });
      else if (!want && unsubscribeFrames !== undefined) {
        unsubscribeFrames();
        unsubscribeFrames = undefined;
      }
    };
    followScreen();
    const unsubscribeInterest = this.#deps.interestChanges?.(followScreen);
    return () => {
      window.removeEventListener('focus', focus);
      window.removeEventListener('blur', blur);
      document.removeEventListener('keydown', key, { capture: true });
      unsubscribeInterest?.();
      unsubscribeFrames?.();
      this.#detachDisplay?.();
    };
  }

  /** Follow the person's pointer on the display element (its box is the picture). */
  watchDisplay(element: HTMLElement | null): void {
    this.#detachDisplay?.();
    this.#detachDisplay = null;
    if (element === null) return;
    const at = (event: MouseEvent) => {
      // The same mapping Guacamole.Mouse uses for what the desktop receives (whole-pixel
      // offsets), so a click is reported where it landed even when the display sits at a
      // fractional page offset (e.g. below the key-reading banner). The display element is the
      // whole desktop at the viewport's scale — shifted, in a cropped or scrolled window — so a
      // point in it divided by the scale is the desktop pixel; vx/vy are already in it.
      const inElement = Guacamole.Position.fromClientPosition(
        element,
        event.clientX,
        event.clientY,
      );
      const v = this.#deps.viewport();
      const pixel = displayPointToDesktop(inElement.x, inElement.y, v.scale);
      const shown =
        pixel.x >= v.vx && pixel.y >= v.vy && pixel.x < v.vx + v.vw && pixel.y < v.vy + v.vh;
      return shown ? pixel : undefined;
    };
    const move = (event: MouseEvent) => {
      if (!this.#moveAllowed()) return;
      const p = at(event);
      if (p !== undefined) this.#emit({ type: 'mouse_move', at: Date.now(), data: p });
    };
    const down = (event: MouseEvent) => {
      const button = BUTTONS[event.button];
      if (button === undefined) return;
      // An interactive overlay there caught the click (the mouse binding held it back from the
      // desktop, hit-testing the desktop pixel Guacamole would have sent): report it with the
      // overlay's id, at that pixel.
      const p = at(event);
      if (p === undefined) return;
      const caught = catchingOverlayAt(p);
      const data =
        caught === undefined ? { ...p, button } : { ...p, button, overlay_id: caught.overlay_id };
      this.#emit({ type: 'mouse_click', at: Date.now(), data });
    };
    // Capture phase and passive: we only watch; Guacamole.Mouse still gets everything.
    element.addEventListener('mousemove', move, { capture: true, passive: true });
    element.addEventListener('mousedown', down, { capture: true, passive: true });
    this.#detachDisplay = () => {
      element.removeEventListener('mousemove', move, { capture: true });
      element.removeEventListener('mousedown', down, { capture: true });
    };
  }

  #emit(event: UiEvent): void {
    if (this.#private(event)) return;
    // Nothing leaves the page that no subscription asked for (key presses above all).
    if (!wanted(this.#deps.interest(), event.type)) return;
    this.#deps.send(event);
  }

  /** Whether `event` happened inside a privacy mask (see UiEventDeps.masks). */
  #private(event: UiEvent): boolean {
    const masks = this.#deps.masks?.() ?? [];
    switch (event.type) {
      case 'mouse_click':
        this.#typingIntoMask = isMasked(masks, event.data);
        return this.#typingIntoMask;
      case 'mouse_move':
        return isMasked(masks, event.data);
      case 'key_press':
        return this.#typingIntoMask && masks.length > 0;
      default:
        return false;
    }
  }
}
