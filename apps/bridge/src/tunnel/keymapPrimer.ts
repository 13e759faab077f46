// Keeps the first typed key of a VNC session from vanishing. TigerVNC's Xvnc types a keysym
// its keymap lacks (ä, €, any non-US character) by adding it to a spare keycode on the fly; the
// very first key event a fresh Xvnc receives is lost when it needs such a mapping (an xterm
// gets nothing for a first `ä`, then every later key arrives). Seen the same through our
// gateway and through Apache guacd 1.6, so it is the server's, not the relay's; any earlier key
// event avoids it. So before the first key a tunnel forwards, when that key is a press of a
// keysym outside the US keymap, the bridge sends a Shift press and release (a no-op for the
// desktop's applications).
import { encodeInstruction } from '@overlay-companion/guac';

const SHIFT_L = 0xffe1;

/** Keysyms every keymap has: printable ASCII and the X function/modifier key block. */
function inEveryKeymap(keysym: number): boolean {
  return (keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xff00 && keysym <= 0xffff);
}

export class KeymapPrimer {
  private seenKey = false;

  /** Encoded instructions to send before this `key` instruction ('' when none). */
  before(args: readonly string[]): string {
    if (this.seenKey) return '';
    this.seenKey = true;
    const keysym = Number(args[0]);
    const pressed = args[1] === '1';
    if (!pressed || !Number.isInteger(keysym) || inEveryKeymap(keysym)) return '';
    return encodeInstruction('key', SHIFT_L, 1) + encodeInstruction('key', SHIFT_L, 0);
  }
}
