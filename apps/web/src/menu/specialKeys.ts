// Key combinations a browser cannot type into the remote desktop by itself (the local OS or the
// browser takes them): each is a list of X11 keysyms pressed in order and released in reverse.
export interface SpecialKey {
  label: string;
  keysyms: readonly number[];
}

const CTRL = 0xffe3;
const ALT = 0xffe9;

export const SPECIAL_KEYS: readonly SpecialKey[] = [
  { label: 'Ctrl+Alt+Del', keysyms: [CTRL, ALT, 0xffff] },
  { label: 'Super', keysyms: [0xffeb] },
  { label: 'Alt+Tab', keysyms: [ALT, 0xff09] },
  { label: 'Print', keysyms: [0xff61] },
  { label: 'Esc', keysyms: [0xff1b] },
  { label: 'Tab', keysyms: [0xff09] },
];

/** F1–F12: XK_F1 is 0xffbe and the rest follow it. */
export const FUNCTION_KEYS: readonly SpecialKey[] = Array.from({ length: 12 }, (_, i) => ({
  label: `F${i + 1}`,
  keysyms: [0xffbe + i],
}));

/** Press the keys in order, then release them in reverse, through `send(pressed, keysym)`. */
export function pressCombo(send: (pressed: 0 | 1, keysym: number) => void, key: SpecialKey): void {
  for (const keysym of key.keysyms) send(1, keysym);
  for (const keysym of [...key.keysyms].reverse()) send(0, keysym);
}
