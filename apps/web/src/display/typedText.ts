// Text the browser hands over as text rather than as keys (an IME's or a dead key's composition,
// a phone keyboard, an emoji picker, `insertText`) → key presses on the desktop, one keysym per
// character. Ordinary typing never gets here: Guacamole.Keyboard sends its keys at keydown and
// cancels them, so the browser inserts nothing.
import type Guacamole from 'guacamole-common-js';
import { getActiveClient } from './activeClient.js';
import { inputSent } from './connectionStats.js';
import { personInputBlocked } from './personInput.js';

/** The parts of an `input` or `compositionend` event that decide what was typed. */
export type TextEventFacts =
  | { type: 'input'; inputType: string; data: string | null; isComposing: boolean }
  | { type: 'compositionend'; data: string };

/**
 * The text an event of the input sink finished typing, or null. A composition counts once, at
 * its end: browsers also report it through `input` events (Chrome while composing, Firefox as
 * `insertCompositionText` after the end, Safari as `insertFromComposition`), which are not
 * `insertText` and so never type it twice. Deletions, line breaks and pastes in the field are
 * the browser's echo of keys the desktop did not take (view only, not connected): never text.
 */
export function typedText(event: TextEventFacts): string | null {
  if (event.type === 'compositionend') return event.data === '' ? null : event.data;
  if (event.inputType !== 'insertText' || event.isComposing) return null;
  return event.data === null || event.data === '' ? null : event.data;
}

const RETURN = 0xff0d;
const TAB = 0xff09;

/**
 * The X keysym of each character of `text`, whole code points (an emoji is one key, not two
 * halves): Latin-1 is its own keysym, the rest is 0x01000000 + the code point, as X defines
 * Unicode keysyms. A line break (\n, \r or \r\n) is Return and a tab is Tab, as on a keyboard;
 * other control characters are dropped rather than sent as whatever key shares their number.
 */
export function keysymsOf(text: string): number[] {
  const keysyms: number[] = [];
  let afterCr = false;
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 0;
    const lf = cp === 0x0a;
    if (lf && afterCr) {
      afterCr = false;
      continue;
    }
    afterCr = cp === 0x0d;
    if (lf || afterCr) keysyms.push(RETURN);
    else if (cp === 0x09) keysyms.push(TAB);
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) continue;
    else keysyms.push(cp <= 0xff ? cp : 0x01000000 + cp);
  }
  return keysyms;
}

/** Presses and releases each character of `text` on `client`; returns how many keys it sent. */
export function typeOn(client: Pick<Guacamole.Client, 'sendKeyEvent'>, text: string): number {
  const keysyms = keysymsOf(text);
  for (const keysym of keysyms) {
    client.sendKeyEvent(1, keysym);
    client.sendKeyEvent(0, keysym);
  }
  return keysyms.length;
}

/**
 * The person typed `text` on the desktop: sent under the same rules as a key (nothing without a
 * client, nothing while they chose View only or their grant is `view`). Returns whether it went.
 */
export function personTyped(text: string): boolean {
  const client = getActiveClient();
  if (!client || personInputBlocked()) return false;
  if (typeOn(client, text) === 0) return false;
  inputSent();
  return true;
}
