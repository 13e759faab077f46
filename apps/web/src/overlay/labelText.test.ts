// How much of a label shows depends on the room: a 4K screen shows a label a phone would cut,
// a phone keeps tags short, and a canvas cut keeps whole letters with an ellipsis.
import { describe, expect, it } from 'vitest';
import { fitLabelText, labelMaxWidth, labelSize } from './labelText.js';

/** 60 characters: cut at the old fixed 280 px (about 35 characters) on every screen. */
const LONG = 'Save button of the invoice dialog (bottom right, under Total)';

describe('labelMaxWidth', () => {
  it('grows with the area: more room on a wide screen, short tags on a phone', () => {
    expect(labelMaxWidth(390)).toBe(240);
    expect(labelMaxWidth(1280)).toBe(512);
    expect(labelMaxWidth(1920)).toBe(768);
    expect(labelMaxWidth(3840)).toBe(960);
    expect(labelMaxWidth(1280)).toBeGreaterThan(labelMaxWidth(390));
  });

  it('never exceeds the area itself', () => {
    expect(labelMaxWidth(200)).toBe(200);
    expect(labelMaxWidth(0)).toBe(0);
  });
});

describe('labelSize', () => {
  it('shows a 60-character label whole on a 4K screen and cuts it on a phone', () => {
    const wide = labelSize(LONG, 1, 3840);
    const whole = labelSize(LONG, 1, 3840, true);
    expect(wide.width).toBe(whole.width);
    expect(wide.width).toBeGreaterThan(280);
    const phone = labelSize(LONG, 1, 390);
    expect(phone.width).toBe(240);
    expect(phone.width).toBeLessThan(whole.width);
  });

  it('leaves short labels their own width everywhere', () => {
    expect(labelSize('OK', 1, 390).width).toBe(labelSize('OK', 1, 3840).width);
  });
});

describe('fitLabelText', () => {
  const measure = (text: string) => Array.from(text).length * 10;

  it('keeps text that fits as it is', () => {
    expect(fitLabelText('Save', 40, measure)).toBe('Save');
  });

  it('cuts the rest with an ellipsis, within the width', () => {
    const cut = fitLabelText(LONG, 200, measure);
    expect(cut).toBe('Save button of the…');
    expect(measure(cut)).toBeLessThanOrEqual(200);
  });

  it('never splits a character made of two code units', () => {
    const cut = fitLabelText('😀😀😀😀😀', 30, measure);
    expect(cut).toBe('😀😀…');
  });
});
