// The viewer's own keyboard shortcuts, which work while the remote desktop has the keyboard and
// are never sent to it (Guacamole's web client convention: Ctrl+Alt+Shift opens its menu).
// The one table of them: the menu's help text and the README are written from it.
export type Hotkey = 'menu' | 'stop';

export interface HeldModifiers {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

/** Shown in the menu and the status bar's tooltips. */
export const HOTKEY_HELP: Readonly<Record<Hotkey, string>> = {
  menu: 'Ctrl+Alt+Shift',
  stop: 'Ctrl+Alt+Shift+S',
};

const S_KEYSYMS = new Set([0x53, 0x73]);
// Shift_L/R, Control_L/R, Meta_L/R, Alt_L/R: either hand's key completes the chord.
const CHORD_KEYSYMS = new Set([0xffe1, 0xffe2, 0xffe3, 0xffe4, 0xffe7, 0xffe8, 0xffe9, 0xffea]);

/**
 * Which hotkey (if any) a key press completes, given the modifiers held once it is down:
 * Ctrl, Alt and Shift together open the menu when the last of them goes down, and S pressed
 * while all three are held is Stop.
 */
export function hotkeyFor(keysym: number, held: HeldModifiers): Hotkey | null {
  if (!(held.ctrl && held.alt && held.shift)) return null;
  if (S_KEYSYMS.has(keysym)) return 'stop';
  if (CHORD_KEYSYMS.has(keysym)) return 'menu';
  return null;
}
