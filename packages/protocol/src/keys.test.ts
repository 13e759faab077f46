import { describe, expect, it } from 'vitest';
import {
  KEY_NAME_KEYSYMS,
  KeyComboError,
  comboKeysyms,
  keysymForCharacter,
  parseKeyCombo,
  textKeysyms,
  tryParseKeyCombo,
} from './keys.js';

describe('parseKeyCombo', () => {
  it.each([
    ['ctrl+alt+t', ['ctrl', 'alt'], 't'],
    ['Return', [], 'Return'],
    ['F5', [], 'F5'],
    ['shift+Tab', ['shift'], 'Tab'],
    ['alt+ctrl+Delete', ['ctrl', 'alt'], 'Delete'], // canonical modifier order
    ['Ctrl+Shift+Escape', ['ctrl', 'shift'], 'Escape'],
    ['control+c', ['ctrl'], 'c'],
    ['super+e', ['super'], 'e'],
    ['win+r', ['super'], 'r'],
    ['meta+x', ['meta'], 'x'],
    ['ctrl + s', ['ctrl'], 's'], // spaces around "+" are tolerated
    ['enter', [], 'Return'],
    ['esc', [], 'Escape'],
    ['backspace', [], 'BackSpace'],
    ['PageDown', [], 'Page_Down'],
    ['page_up', [], 'Page_Up'],
    ['arrowleft', [], 'Left'],
    ['f24', [], 'F24'],
    ['space', [], 'space'],
    ['ctrl+space', ['ctrl'], 'space'],
    ['+', [], '+'],
    ['ctrl++', ['ctrl'], '+'],
    ['shift+T', ['shift'], 'T'], // single characters keep their case
    ['é', [], 'é'],
    ['ctrl+€', ['ctrl'], '€'],
    ['🎉', [], '🎉'],
  ])('%j → %j + %j', (input, modifiers, key) => {
    expect(parseKeyCombo(input)).toEqual({ modifiers, key });
  });

  it.each([
    ['', 'empty key combo'],
    ['ctrl+', 'no key after the modifiers'],
    ['ctrl+ ', 'use "space" for the space bar'],
    ['ctrl', 'ends with a modifier'],
    ['hyper+a', '"hyper" is not a modifier'],
    ['a+b', '"a" is not a modifier'],
    ['ctrl++a', 'an empty part is not a modifier'],
    ['ctrl+ctrl+a', 'modifier "ctrl" appears twice'],
    ['ctrl+control+a', 'modifier "ctrl" appears twice'],
    ['F25', 'unknown key "F25"'],
    ['ab', 'unknown key "ab"'],
    ['ctrl+\u0007', 'unknown key'],
    ['x'.repeat(65), 'longer than 64 characters'],
  ])('rejects %j with "%s"', (input, message) => {
    const result = tryParseKeyCombo(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
    expect(() => parseKeyCombo(input)).toThrow(KeyComboError);
  });
});

describe('keysyms', () => {
  it.each([
    ['Return', 0xff0d],
    ['Tab', 0xff09],
    ['Escape', 0xff1b],
    ['BackSpace', 0xff08],
    ['Delete', 0xffff],
    ['Home', 0xff50],
    ['End', 0xff57],
    ['Page_Up', 0xff55],
    ['Page_Down', 0xff56],
    ['Left', 0xff51],
    ['Up', 0xff52],
    ['Right', 0xff53],
    ['Down', 0xff54],
    ['Insert', 0xff63],
    ['space', 0x20],
    ['F1', 0xffbe],
    ['F12', 0xffc9],
    ['F24', 0xffd5],
  ])('%s = %i', (name, keysym) => {
    expect(KEY_NAME_KEYSYMS[name]).toBe(keysym);
  });

  it.each([
    ['a', 0x61],
    ['A', 0x41],
    ['~', 0x7e],
    ['é', 0xe9], // Latin-1: the code point itself
    ['ÿ', 0xff],
    ['€', 0x010020ac], // beyond Latin-1: 0x01000000 + code point
    ['世', 0x01004e16],
    ['🎉', 0x0101f389],
  ])('character %j = %i', (char, keysym) => {
    expect(keysymForCharacter(char)).toBe(keysym);
  });

  it.each(['\u0000', '\n', '\u007f', '\u0085', 'ab', '', '\ud800'])('no keysym for %j', (char) => {
    expect(keysymForCharacter(char)).toBeUndefined();
  });

  it('comboKeysyms presses modifiers first, then the key', () => {
    expect(comboKeysyms(parseKeyCombo('ctrl+alt+t'))).toEqual([0xffe3, 0xffe9, 0x74]);
    expect(comboKeysyms(parseKeyCombo('shift+super+meta+F5'))).toEqual([
      0xffe1, 0xffeb, 0xffe7, 0xffc2,
    ]);
    expect(comboKeysyms(parseKeyCombo('Return'))).toEqual([0xff0d]);
  });

  it('textKeysyms types line breaks as Return and tabs as Tab', () => {
    expect(textKeysyms('a\r\nb\nc\rd\te')).toEqual({
      ok: true,
      keysyms: [0x61, 0xff0d, 0x62, 0xff0d, 0x63, 0xff0d, 0x64, 0xff09, 0x65],
    });
    expect(textKeysyms('🎉x\u0001')).toEqual({ ok: false, index: 3, codePoint: 1 });
  });
});
