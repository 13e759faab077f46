import { describe, expect, it } from 'vitest';
import { CSS_NAMED_COLORS } from './cssColors.js';
import { CssColor, clampRect, isCssColor, monitorToDesktop } from './common.js';

describe('CSS colors', () => {
  it('lists the 148 named colors once each, lower-case', () => {
    expect(CSS_NAMED_COLORS).toHaveLength(148);
    expect(new Set(CSS_NAMED_COLORS).size).toBe(148);
    for (const name of CSS_NAMED_COLORS) expect(name).toMatch(/^[a-z]+$/);
  });

  it.each([
    'red',
    'RED',
    'rebeccapurple',
    'lightgoldenrodyellow',
    'grey',
    'gray',
    '#abc',
    '#ABCDEF',
    '#00000000',
  ])('accepts %s', (color) => {
    expect(isCssColor(color)).toBe(true);
    expect(CssColor.safeParse(color).success).toBe(true);
  });

  it.each([
    '',
    'transparent',
    'currentcolor',
    'redd',
    ' red',
    '#ab',
    '#abcd',
    '#abcde',
    '#abcdefa',
    '#ggg',
    'rgb(0,0,0)',
    'url(x)',
    'red;background:url(x)',
  ])('rejects %j', (color) => {
    expect(isCssColor(color)).toBe(false);
    expect(CssColor.safeParse(color).success).toBe(false);
  });
});

describe('geometry helpers', () => {
  it('monitorToDesktop offsets by the monitor origin, or leaves desktop coordinates alone', () => {
    expect(monitorToDesktop({ x: 10, y: 20, width: 5 }, { x: 1920, y: 0 })).toEqual({
      x: 1930,
      y: 20,
      width: 5,
    });
    expect(monitorToDesktop({ x: 10, y: 20 }, undefined)).toEqual({ x: 10, y: 20 });
  });

  it.each([
    [
      { x: 10, y: 10, width: 20, height: 20 },
      { x: 10, y: 10, width: 20, height: 20 },
    ],
    [
      { x: 90, y: 95, width: 20, height: 20 },
      { x: 90, y: 95, width: 10, height: 5 },
    ],
    [
      { x: 150, y: 10, width: 20, height: 20 },
      { x: 100, y: 10, width: 0, height: 20 },
    ],
  ])('clampRect(%j) to 100x100 → %j', (rect, expected) => {
    expect(clampRect(rect, { width: 100, height: 100 })).toEqual(expected);
  });
});
