// The keyboard rules around the approval panel: which of the panel and the menu an Escape belongs
// to (never the desktop's Escape, exactly one of them otherwise), and where the keyboard goes
// after an answer. The focus moves themselves run in Chromium: e2e/keyboardApproval.spec.ts.
import { describe, expect, it } from 'vitest';
import { escapeAction, returnTarget, type KeyboardPlace } from './answerKeyboard.js';

const PLACES: KeyboardPlace[] = ['desktop', 'approval', 'menu', 'page'];

describe('escapeAction', () => {
  it('leaves an Escape typed into the desktop to the desktop, whatever is open', () => {
    for (const menuOpen of [false, true])
      for (const approvalWaiting of [false, true])
        expect(escapeAction('desktop', { menuOpen, approvalWaiting })).toBe('none');
  });

  it('denies in the panel, even with the menu open', () => {
    expect(escapeAction('approval', { menuOpen: true, approvalWaiting: true })).toBe('deny');
    expect(escapeAction('approval', { menuOpen: false, approvalWaiting: true })).toBe('deny');
  });

  it('closes the menu from inside it without denying what waits', () => {
    expect(escapeAction('menu', { menuOpen: true, approvalWaiting: true })).toBe('closeMenu');
  });

  it('closes the menu from the rest of the page (<body> after an answer), the harmless choice first', () => {
    expect(escapeAction('page', { menuOpen: true, approvalWaiting: false })).toBe('closeMenu');
    expect(escapeAction('page', { menuOpen: true, approvalWaiting: true })).toBe('closeMenu');
    expect(escapeAction('page', { menuOpen: false, approvalWaiting: true })).toBe('deny');
    expect(escapeAction('page', { menuOpen: false, approvalWaiting: false })).toBe('none');
  });

  it('never denies with nothing waiting, and never closes a menu that is closed', () => {
    for (const place of PLACES) {
      expect(escapeAction(place, { menuOpen: true, approvalWaiting: false })).not.toBe('deny');
      expect(escapeAction(place, { menuOpen: false, approvalWaiting: true })).not.toBe('closeMenu');
    }
  });
});

describe('returnTarget', () => {
  it('gives the keyboard back to the desktop when it came from there, or from nowhere', () => {
    expect(returnTarget('desktop', false)).toBe('desktop');
    expect(returnTarget(null, false)).toBe('desktop');
    expect(returnTarget(null, true)).toBe('desktop');
  });

  it('gives it back to the control on the page it came from', () => {
    expect(returnTarget('page', false)).toBe('cameFrom');
  });

  it('sends it to the desktop rather than into a menu that is closing', () => {
    expect(returnTarget('menu', false)).toBe('desktop');
    expect(returnTarget('menu', true)).toBe('cameFrom');
  });

  it('never back into the panel itself', () => {
    expect(returnTarget('approval', true)).toBe('desktop');
  });
});
