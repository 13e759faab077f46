// The viewer's hotkeys (display/hotkeys.ts) while the keyboard is on the page itself — the
// menu, a button, the approval panel — rather than on the desktop, where inputBindings.ts
// catches them. Same keys, same meaning everywhere in the window: Ctrl+Alt+Shift pressed and
// released toggles the menu, and S pressed while they are held is Stop.
import { DISPLAY_AREA_ATTRIBUTE } from '../display/guacBrowser.js';
import type { Hotkey } from '../display/hotkeys.js';

const CHORD_KEYS = new Set(['Control', 'Alt', 'Shift', 'AltGraph']);

function onDesktop(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest(`[${DISPLAY_AREA_ATTRIBUTE}]`) !== null;
}

/** Listen on `doc` for the hotkeys outside the desktop; returns the undo. */
export function bindPageHotkeys(doc: Document, onHotkey: (hotkey: Hotkey) => void): () => void {
  let chordDown = false;
  const down = (event: KeyboardEvent) => {
    if (onDesktop(event.target)) return;
    const all = event.ctrlKey && event.altKey && event.shiftKey;
    if (!all) {
      chordDown = false;
      return;
    }
    if (event.code === 'KeyS') {
      event.preventDefault();
      chordDown = false;
      onHotkey('stop');
    } else if (CHORD_KEYS.has(event.key)) {
      chordDown = true;
    } else {
      chordDown = false;
    }
  };
  const up = (event: KeyboardEvent) => {
    if (onDesktop(event.target) || !chordDown || !CHORD_KEYS.has(event.key)) return;
    chordDown = false;
    event.preventDefault();
    onHotkey('menu');
  };
  doc.addEventListener('keydown', down, true);
  doc.addEventListener('keyup', up, true);
  return () => {
    doc.removeEventListener('keydown', down, true);
    doc.removeEventListener('keyup', up, true);
  };
}
