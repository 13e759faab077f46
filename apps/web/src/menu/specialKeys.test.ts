import { describe, expect, it } from 'vitest';
import { FUNCTION_KEYS, SPECIAL_KEYS, pressCombo } from './specialKeys.js';

describe('special keys', () => {
  it('presses a combination in order and releases it in reverse', () => {
    const sent: Array<[number, number]> = [];
    const cad = SPECIAL_KEYS.find((k) => k.label === 'Ctrl+Alt+Del');
    if (cad === undefined) throw new Error('Ctrl+Alt+Del missing');
    pressCombo((pressed, keysym) => sent.push([pressed, keysym]), cad);
    expect(sent).toEqual([
      [1, 0xffe3],
      [1, 0xffe9],
      [1, 0xffff],
      [0, 0xffff],
      [0, 0xffe9],
      [0, 0xffe3],
    ]);
  });

  it('has F1 to F12 with their X11 keysyms', () => {
    expect(FUNCTION_KEYS.map((k) => k.label)).toEqual(
      Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
    );
    expect(FUNCTION_KEYS[0]?.keysyms).toEqual([0xffbe]);
    expect(FUNCTION_KEYS[11]?.keysyms).toEqual([0xffc9]);
  });
});
