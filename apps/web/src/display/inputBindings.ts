// Mouse and keyboard of the person → the remote desktop, through guacamole-common-js.
// guacamole-common-js 1.5.0 offers no way to remove Mouse/Keyboard listeners, so each element
// gets at most one Mouse/Keyboard (kept in WeakMaps) and only their handlers are swapped;
// that keeps React StrictMode's mount–unmount–mount from doubling every event.
import Guacamole from 'guacamole-common-js';
import { getActiveClient } from './activeClient.js';

const mice = new WeakMap<HTMLElement, Guacamole.Mouse>();
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
    // One display element belongs to one client for its whole life, so binding once is right.
    mouse.onEach(['mousedown', 'mouseup', 'mousemove'], (event) => {
      client.sendMouseState((event as Guacamole.Mouse.Event).state, true);
    });
    mice.set(element, mouse);
  }
  return mouse;
}

/**
 * Forward key presses that happen while `element` (or something inside it) has focus to the
 * active client. Keys pressed anywhere else on the page stay with the page.
 * Returns a function that stops forwarding (and releases any key still held).
 */
export function bindKeyboard(element: HTMLElement): () => void {
  let keyboard = keyboards.get(element);
  if (!keyboard) {
    keyboard = new Guacamole.Keyboard(element);
    keyboards.set(element, keyboard);
  }
  const kb = keyboard;
  kb.onkeydown = (keysym) => {
    const client = getActiveClient();
    // Not connected: let the browser have the key rather than swallowing it silently.
    if (!client) return true;
    client.sendKeyEvent(1, keysym);
    return false;
  };
  kb.onkeyup = (keysym) => {
    getActiveClient()?.sendKeyEvent(0, keysym);
  };
  // Focus moving elsewhere (a button, another window) would leave keys held down remotely;
  // reset() releases them through onkeyup.
  const release = () => kb.reset();
  element.addEventListener('blur', release);
  return () => {
    element.removeEventListener('blur', release);
    kb.reset();
    kb.onkeydown = null;
    kb.onkeyup = null;
  };
}
