// Naming the person's key presses the way press_key does (key + keysym), and skipping keys
// that have no such name (modifiers alone, dead keys).
import { describe, expect, it } from 'vitest';
import { keyOf, wanted } from './uiEvents.js';

describe('keyOf', () => {
  it.each([
    ['a', { key: 'a', keysym: 0x61 }],
    ['A', { key: 'A', keysym: 0x41 }],
    [' ', { key: 'space', keysym: 0x20 }],
    ['Enter', { key: 'Return', keysym: 0xff0d }],
    ['ArrowLeft', { key: 'Left', keysym: 0xff51 }],
    ['Backspace', { key: 'BackSpace', keysym: 0xff08 }],
    ['F5', { key: 'F5', keysym: 0xffc2 }],
    ['€', { key: '€', keysym: 0x010020ac }],
  ])('%j → %j', (key, expected) => {
    expect(keyOf(key)).toEqual(expected);
  });

  it.each(['Shift', 'Control', 'Dead', 'Unidentified'])('skips %s', (key) => {
    expect(keyOf(key)).toBeUndefined();
  });
});

describe('wanted', () => {
  it('sends everything until the bridge says, then only what it listed', () => {
    expect(wanted(null, 'key_press')).toBe(true);
    expect(wanted(['mouse_click'], 'key_press')).toBe(false);
    expect(wanted(['mouse_click'], 'mouse_click')).toBe(true);
    expect(wanted([], 'screen_change')).toBe(false);
  });
});
