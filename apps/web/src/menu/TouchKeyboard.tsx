// The on-screen keyboard for phones and tablets: a text field that brings up the device's own
// keyboard (and its input methods) and sends what is typed to the desktop as key presses —
// characters as their keysyms (textKeysyms), Backspace, Return and the arrows as those keys.
// Tab is left to the page (moving focus on): taking it would trap the keyboard here.
import { textKeysyms } from '@overlay-companion/protocol';
import { useRef } from 'react';
import { getActiveClient } from '../display/activeClient.js';
import { personInputBlocked } from '../display/personInput.js';

const KEYS: Readonly<Record<string, number>> = {
  Backspace: 0xff08,
  Enter: 0xff0d,
  Delete: 0xffff,
  ArrowLeft: 0xff51,
  ArrowUp: 0xff52,
  ArrowRight: 0xff53,
  ArrowDown: 0xff54,
};

function tap(keysym: number): void {
  const client = getActiveClient();
  if (client === null || personInputBlocked()) return;
  client.sendKeyEvent(1, keysym);
  client.sendKeyEvent(0, keysym);
}

export function TouchKeyboard() {
  const field = useRef<HTMLInputElement>(null);
  return (
    <label className="client-menu__field">
      <span>On-screen keyboard: type here and it goes to the desktop</span>
      <input
        ref={field}
        type="text"
        data-testid="touch-keyboard"
        autoCapitalize="off"
        autoComplete="off"
        autoCorrect="off"
        spellCheck={false}
        onKeyDown={(event) => {
          const keysym = KEYS[event.key];
          if (keysym === undefined) return;
          event.preventDefault();
          tap(keysym);
        }}
        onInput={(event) => {
          const text = event.currentTarget.value;
          event.currentTarget.value = '';
          const keysyms = textKeysyms(text);
          if (keysyms.ok) keysyms.keysyms.forEach(tap);
        }}
      />
    </label>
  );
}
