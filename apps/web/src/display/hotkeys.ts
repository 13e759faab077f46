// The viewer's own keyboard shortcuts, which work while the remote desktop has the keyboard and
// are never sent to it (Guacamole's web client convention: Ctrl+Alt+Shift opens its menu).
// The one table of them: the menu's help text and the README are written from it. While the AI
// waits for an answer, the menu chord goes to the approval panel first (menuChordTarget).
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

/** The approval panel from the keyboard: shown in the panel and the menu. */
export const APPROVAL_KEYS_HELP =
  `While the AI waits for your answer, ${HOTKEY_HELP.menu} puts the keyboard on Deny ` +
  `(press it again there for the menu); Tab moves to Approve; Enter answers.`;

/** On the bar's Menu button: closing the menu gives the keyboard back to it when it opened it. */
export const MENU_BUTTON_ATTRIBUTE = 'data-menu-button';

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

/**
 * What the menu chord does. While an approval waits, it takes the keyboard to the panel's first
 * answer (Deny: the safe one) from anywhere outside the panel — the desktop, the menu, the
 * status bar — so the person answers in at most three presses (chord, Tab, Enter) instead of
 * tabbing through the whole menu against the countdown. From inside the panel, or with nothing
 * waiting, it opens or closes the menu as always.
 */
export function menuChordTarget(
  approvalWaiting: boolean,
  keyboardInApproval: boolean,
): 'approval' | 'menu' {
  return approvalWaiting && !keyboardInApproval ? 'approval' : 'menu';
}
