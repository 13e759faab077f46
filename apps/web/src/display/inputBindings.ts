// Mouse and keyboard of the person → the remote desktop, through guacamole-common-js.
// guacamole-common-js 1.5.0 offers no way to remove Mouse/Keyboard listeners, so each element
// gets at most one Mouse/Keyboard (kept in WeakMaps) and only their handlers are swapped;
// that keeps React StrictMode's mount–unmount–mount from doubling every event. Presses on an
// interactive overlay (click_through: false) are held back from the desktop by a ClickCatcher
// (overlay/interactive.ts), hit-tested at the desktop pixel the desktop would have got.
import Guacamole from 'guacamole-common-js';
import { ClickCatcher, displayPointToDesktop } from '../overlay/interactive.js';
import { getActiveClient } from './activeClient.js';
import { hotkeyFor, type Hotkey } from './hotkeys.js';
import { inputSent } from './connectionStats.js';
import { personInputBlocked } from './personInput.js';
import { listenForText } from './inputSink.js';
import { personTyped } from './typedText.js';

/**
 * Sends `state` to `client` unless an interactive overlay catches it (or it would tell the
 * desktop nothing new); returns what was sent.
 */
function sendPast(
  catcher: ClickCatcher,
  client: Guacamole.Client,
  state: Guacamole.Mouse.State,
): Guacamole.Mouse.State | null {
  const scale = client.getDisplay().getScale();
  const out = catcher.filter(state, displayPointToDesktop(state.x, state.y, scale));
  if (out === null) return null;
  const sent = new Guacamole.Mouse.State(
    out.x,
    out.y,
    out.left,
    out.middle,
    out.right,
    out.up,
    out.down,
  );
  client.sendMouseState(sent, true);
  return sent;
}

const mice = new WeakMap<HTMLElement, Guacamole.Mouse>();
const touchscreens = new WeakMap<HTMLElement, Guacamole.Mouse.Touchscreen>();

/** Vertical finger travel, in CSS pixels, that makes one wheel step of a two-finger scroll. */
export const TOUCH_SCROLL_STEP_PX = 30;
const keyboards = new WeakMap<HTMLElement, Guacamole.Keyboard>();

/**
 * Forward buttons, moves and the wheel over `element` (the display element of `client`) to
 * `client`. Positions are in CSS pixels of the scaled element; `sendMouseState(state, true)`
 * divides them by the display scale to get desktop pixels.
 */
export function bindMouse(element: HTMLElement, client: Guacamole.Client): Guacamole.Mouse {
  let mouse = mice.get(element);
  if (!mouse) {
    mouse = new Guacamole.Mouse(element);
    const catcher = new ClickCatcher();
    // One display element belongs to one client for its whole life, so binding once is right.
    mouse.onEach(['mousedown', 'mouseup', 'mousemove'], (event) => {
      if (personInputBlocked()) return;
      if (sendPast(catcher, client, (event as Guacamole.Mouse.Event).state) !== null) inputSent();
    });
    mice.set(element, mouse);
  }
  return mouse;
}

/**
 * Touch on `element` (the display element of `client`), as on Guacamole's touchscreen: a tap
 * clicks where the finger is, a long press is a right click, a one-finger drag drags; and a
 * two-finger drag scrolls (one wheel step per TOUCH_SCROLL_STEP_PX), at the last pointer spot.
 */
export function bindTouch(element: HTMLElement, client: Guacamole.Client): void {
  if (touchscreens.has(element)) return;
  const touch = new Guacamole.Mouse.Touchscreen(element);
  const catcher = new ClickCatcher();
  let last = new Guacamole.Mouse.State(0, 0, false, false, false, false, false);
  touch.onEach(['mousedown', 'mouseup', 'mousemove'], (event) => {
    if (personInputBlocked()) return;
    last = sendPast(catcher, client, (event as Guacamole.Mouse.Event).state) ?? last;
  });
  touchscreens.set(element, touch);

  let scrollY: number | null = null;
  element.addEventListener(
    'touchmove',
    (event) => {
      if (event.touches.length !== 2) {
        scrollY = null;
        return;
      }
      event.preventDefault();
      const y = ((event.touches[0]?.clientY ?? 0) + (event.touches[1]?.clientY ?? 0)) / 2;
      if (scrollY === null) {
        scrollY = y;
        return;
      }
      while (Math.abs(y - scrollY) >= TOUCH_SCROLL_STEP_PX) {
        const up = y > scrollY; // fingers moving down scroll the content up, as on a phone
        scrollY += up ? TOUCH_SCROLL_STEP_PX : -TOUCH_SCROLL_STEP_PX;
        if (personInputBlocked()) continue;
        const wheel = new Guacamole.Mouse.State(last.x, last.y, false, false, false, up, !up);
        client.sendMouseState(wheel, true);
        client.sendMouseState(
          new Guacamole.Mouse.State(last.x, last.y, false, false, false, false, false),
          true,
        );
      }
    },
    { passive: false },
  );
  element.addEventListener('touchend', () => {
    scrollY = null;
  });
}

/**
 * Forward key presses that happen while `element` (or something inside it) has focus to the
 * active client, and text that arrives as text (an IME, dead keys, a phone keyboard: see
 * inputSink.ts) as the keys of its characters. Keys pressed anywhere else on the page stay with
 * the page. The viewer's
 * hotkeys (hotkeys.ts) are caught first and never reach the desktop: `onHotkey` gets them, and
 * every key already sent down is released remotely, so no modifier stays stuck there.
 * Returns a function that stops forwarding (and releases any key still held).
 */
export function bindKeyboard(element: HTMLElement, onHotkey: (hotkey: Hotkey) => void): () => void {
  let keyboard = keyboards.get(element);
  if (!keyboard) {
    keyboard = new Guacamole.Keyboard(element);
    keyboards.set(element, keyboard);
  }
  const kb = keyboard;
  // Keys the desktop saw go down and not yet up, so a hotkey can release exactly those.
  const sentDown = new Set<number>();
  // Keys whose local release must not reach the desktop (a hotkey and the keys it released).
  const swallowed = new Set<number>();
  // The menu chord is down: it opens the menu when released, unless S made it Stop first.
  let chordDown = false;
  kb.onkeydown = (keysym) => {
    const hotkey = hotkeyFor(keysym, kb.modifiers);
    const client = getActiveClient();
    if (hotkey !== null) {
      for (const down of sentDown) {
        client?.sendKeyEvent(0, down);
        swallowed.add(down);
      }
      sentDown.clear();
      swallowed.add(keysym);
      chordDown = hotkey === 'menu';
      if (hotkey === 'stop') onHotkey('stop');
      return false;
    }
    // Not connected, or view only (chosen, or a view grant): let the browser have the key rather than swallowing it.
    if (!client || personInputBlocked()) return true;
    client.sendKeyEvent(1, keysym);
    inputSent();
    sentDown.add(keysym);
    return false;
  };
  kb.onkeyup = (keysym) => {
    if (swallowed.delete(keysym)) {
      if (chordDown) {
        chordDown = false;
        onHotkey('menu');
      }
      return;
    }
    if (!sentDown.delete(keysym)) return;
    getActiveClient()?.sendKeyEvent(0, keysym);
  };
  const stopText = listenForText(element, personTyped);
  // Focus moving elsewhere (a button, another window) would leave keys held down remotely;
  // reset() releases them through onkeyup.
  const release = () => kb.reset();
  element.addEventListener('blur', release);
  return () => {
    stopText();
    element.removeEventListener('blur', release);
    kb.reset();
    kb.onkeydown = null;
    kb.onkeyup = null;
  };
}
