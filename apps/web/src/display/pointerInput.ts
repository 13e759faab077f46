// The AI's pointer states on a Guacamole client's own tunnel: the `mouse` instruction that
// client.sendMouseState sends (same button mask, desktop pixels floored), without moving the
// client's local cursor there — the tool call moves it when it shows the input
// (control/shownLater.ts), after the desktop confirmed it, so the repaint that move causes is
// not on the call's critical path.
import type Guacamole from 'guacamole-common-js';

type PointerTunnel = Pick<Guacamole.Tunnel, 'sendMessage'>;

/** The button mask of Guacamole's `mouse` instruction (guacamole-common-js 1.5's sendMouseState). */
export function mouseMask(state: Guacamole.Mouse.State): number {
  let mask = 0;
  if (state.left) mask |= 1;
  if (state.middle) mask |= 2;
  if (state.right) mask |= 4;
  if (state.up) mask |= 8;
  if (state.down) mask |= 16;
  return mask;
}

const tunnels = new WeakMap<Guacamole.Client, PointerTunnel>();

/** Pointer input for a client made on `tunnel`; call right after making the Client on it. */
export function attachPointerInput(client: Guacamole.Client, tunnel: PointerTunnel): void {
  tunnels.set(client, tunnel);
}

/**
 * Sends `state` to the desktop without moving the local cursor. A client not made by the
 * viewer's session (no tunnel known here) sends it its own way, which moves the cursor at once.
 */
export function sendPointer(client: Guacamole.Client, state: Guacamole.Mouse.State): void {
  const tunnel = tunnels.get(client);
  if (tunnel === undefined) {
    client.sendMouseState(state);
    return;
  }
  tunnel.sendMessage('mouse', Math.floor(state.x), Math.floor(state.y), mouseMask(state));
}

/** Moves the client's local cursor to desktop pixel x, y (what sendMouseState does as it sends). */
export function moveLocalCursor(client: Guacamole.Client, x: number, y: number): void {
  client.getDisplay().moveCursor(x, y);
}
