// A FAKE of the input side of Guacamole.Client for unit tests: it records the Guacamole `mouse`
// and `key` instructions the real client would send (same mask rules as guacamole-common-js
// 1.5.0's sendMouseState), so handler tests can assert the exact instruction sequence. The real
// client is exercised by the e2e tests against a real desktop.
import type Guacamole from 'guacamole-common-js';
import type { InputClient } from './input.js';

export class FakeGuacClient implements InputClient {
  /** "mouse,x,y,mask" and "key,keysym,pressed", in order. */
  readonly sent: string[] = [];
  /** Arguments the real client would apply the display scale with; must stay falsy. */
  readonly scaleFlags: (boolean | undefined)[] = [];

  sendMouseState(state: Guacamole.Mouse.State, applyDisplayScale?: boolean): void {
    this.scaleFlags.push(applyDisplayScale);
    let mask = 0;
    if (state.left) mask |= 1;
    if (state.middle) mask |= 2;
    if (state.right) mask |= 4;
    if (state.up) mask |= 8;
    if (state.down) mask |= 16;
    this.sent.push(`mouse,${Math.floor(state.x)},${Math.floor(state.y)},${mask}`);
  }

  sendKeyEvent(pressed: 0 | 1 | boolean, keysym: number): void {
    this.sent.push(`key,${keysym},${Number(pressed)}`);
  }
}
