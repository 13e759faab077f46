// What the token table says about a token's desktops.
import { describe, expect, it } from 'vitest';
import { tokenDesktopsText } from './TokenTable.js';

describe('tokenDesktopsText', () => {
  it('says all for an unlimited token and names the desktops of a limited one', () => {
    expect(tokenDesktopsText({ desktops: null })).toBe('All my desktops');
    const names = new Map([
      ['dsk_a', 'Build box'],
      ['dsk_b', 'Shared'],
    ]);
    expect(tokenDesktopsText({ desktops: ['dsk_b', 'dsk_a'] }, names)).toBe('Shared, Build box');
    expect(tokenDesktopsText({ desktops: ['dsk_gone'] }, names)).toBe(
      'dsk_gone (gone or not yours)',
    );
  });
});
