// A FAKE of the input side of Guacamole.Client for unit tests: it records the Guacamole `mouse`
// and `key` instructions the real client would send (same mask rules as guacamole-common-js
// 1.5.0's sendMouseState), so handler tests can assert the exact instruction sequence. The real
// client is exercised by the e2e tests against a real desktop.
import type Guacamole from 'guacamole-common-js';
import { mouseMask } from '../../display/pointerInput.js';
import type { InputClient } from './input.js';

export class FakeGuacClient implements InputClient {
  /** "mouse,x,y,mask" and "key,keysym,pressed", in order. */
  readonly sent: string[] = [];
  /** Arguments the real client would apply the display scale with; must stay falsy. */
  readonly scaleFlags: (boolean | undefined)[] = [];

  sendMouseState(state: Guacamole.Mouse.State, applyDisplayScale?: boolean): void {
    this.scaleFlags.push(applyDisplayScale);
    this.sent.push(`mouse,${Math.floor(state.x)},${Math.floor(state.y)},${mouseMask(state)}`);
  }

  sendKeyEvent(pressed: 0 | 1 | boolean, keysym: number): void {
    this.sent.push(`key,${keysym},${Number(pressed)}`);
  }
}
