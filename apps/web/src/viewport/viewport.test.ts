// Viewport math: fitting, the desktop⇄window mapping both ways (a property: round trips), and
// the visible desktop rectangle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  desktopToWindow,
  fitViewport,
  rectToWindow,
  visibleDesktopRect,
  windowToDesktop,
  type Viewport,
} from './viewport.js';

describe('fitViewport', () => {
  it('shows the whole desktop, scaled to fit and centred', () => {
    const { viewport, origin } = fitViewport(
      { width: 1000, height: 1000 },
      { width: 2000, height: 1000 },
    );
    expect(viewport).toEqual({ vx: 0, vy: 0, vw: 2000, vh: 1000, scale: 0.5 });
    expect(origin).toEqual({ x: 0, y: 250 });
  });

  it('keeps scale 1 while the desktop size is unknown', () => {
    const { viewport } = fitViewport({ width: 800, height: 600 }, { width: 0, height: 0 });
    expect(viewport.scale).toBe(1);
  });
});

describe('desktop ⇄ window', () => {
  const vp: Viewport = { vx: 100, vy: 50, vw: 800, vh: 600, scale: 2 };

  it('applies window = (desktop - (vx, vy)) * scale', () => {
    expect(desktopToWindow(vp, { x: 110, y: 60 })).toEqual({ x: 20, y: 20 });
    expect(windowToDesktop(vp, { x: 20, y: 20 })).toEqual({ x: 110, y: 60 });
    expect(rectToWindow(vp, { x: 100, y: 50, width: 10, height: 5 })).toEqual({
      x: 0,
      y: 0,
      width: 20,
      height: 10,
    });
  });

  it('round-trips any point at any positive scale', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 32767 }),
        fc.integer({ min: 0, max: 32767 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.double({ min: 0.05, max: 8, noNaN: true }),
        (x, y, vx, vy, scale) => {
          const v: Viewport = { vx, vy, vw: 100, vh: 100, scale };
          const back = windowToDesktop(v, desktopToWindow(v, { x, y }));
          expect(back.x).toBeCloseTo(x, 6);
          expect(back.y).toBeCloseTo(y, 6);
        },
      ),
    );
  });

  it('reports the visible desktop rectangle as integers', () => {
    expect(visibleDesktopRect({ vx: 0.4, vy: 0, vw: 1279.6, vh: 800, scale: 1 })).toEqual({
      x: 0,
      y: 0,
      width: 1280,
      height: 800,
    });
  });
});
