import { describe, expect, it } from 'vitest';
import { tabAfterKey } from './tabKeys.js';

describe('tabAfterKey', () => {
  it('moves to the next and previous tab with the arrows, wrapping at the ends', () => {
    expect(tabAfterKey('ArrowRight', 0, 7)).toBe(1);
    expect(tabAfterKey('ArrowRight', 6, 7)).toBe(0);
    expect(tabAfterKey('ArrowLeft', 3, 7)).toBe(2);
    expect(tabAfterKey('ArrowLeft', 0, 7)).toBe(6);
  });

  it('goes to the first and last tab with Home and End', () => {
    expect(tabAfterKey('Home', 4, 7)).toBe(0);
    expect(tabAfterKey('End', 1, 7)).toBe(6);
  });

  it('leaves every other key to the page (Tab leaves the tab list, arrows down scroll)', () => {
    for (const key of ['Tab', 'ArrowDown', 'ArrowUp', 'Enter', ' ', 'a']) {
      expect(tabAfterKey(key, 2, 7)).toBeUndefined();
    }
    expect(tabAfterKey('ArrowRight', 0, 0)).toBeUndefined();
  });
});
