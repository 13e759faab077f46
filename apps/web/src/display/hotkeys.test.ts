import { describe, expect, it } from 'vitest';
import { APPROVAL_KEYS_HELP, HOTKEY_HELP, hotkeyFor, menuChordTarget } from './hotkeys.js';

const all = { ctrl: true, alt: true, shift: true };

describe('hotkeyFor', () => {
  it('opens the menu when the last of Ctrl, Alt and Shift goes down, with either hand', () => {
    expect(hotkeyFor(0xffe1, all)).toBe('menu'); // Shift_L last
    expect(hotkeyFor(0xffea, all)).toBe('menu'); // Alt_R last
    expect(hotkeyFor(0xffe4, all)).toBe('menu'); // Control_R last
  });

  it('is Stop for S (either case) while all three are held', () => {
    expect(hotkeyFor(0x53, all)).toBe('stop');
    expect(hotkeyFor(0x73, all)).toBe('stop');
  });

  it('is nothing without all three modifiers, and for other keys', () => {
    expect(hotkeyFor(0x53, { ctrl: true, alt: true, shift: false })).toBeNull();
    expect(hotkeyFor(0xffe1, { ctrl: true, alt: false, shift: true })).toBeNull();
    expect(hotkeyFor(0x61, all)).toBeNull();
    expect(hotkeyFor(0xff1b, all)).toBeNull();
  });
});

describe('menuChordTarget', () => {
  it('takes the keyboard to the approval panel while an approval waits, from outside it', () => {
    expect(menuChordTarget(true, false)).toBe('approval');
  });

  it('toggles the menu from inside the panel (the second press), and with nothing waiting', () => {
    expect(menuChordTarget(true, true)).toBe('menu');
    expect(menuChordTarget(false, false)).toBe('menu');
    expect(menuChordTarget(false, true)).toBe('menu');
  });

  it('is documented with the chord the person actually presses', () => {
    expect(APPROVAL_KEYS_HELP).toContain(HOTKEY_HELP.menu);
    expect(APPROVAL_KEYS_HELP).toMatch(/Deny.*Tab.*Approve.*Enter/);
  });
});
