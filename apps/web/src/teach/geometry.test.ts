// Teach mode's geometry: the desktop pixel under a point of the layer through a scaled and offset
// (cropped) viewport, clamping to what the window shows, the rectangle a drag spans, the keyboard
// crosshair, privacy masks, and the items as the tool returns them with their monitor_index.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { desktopToWindow, type Viewport } from '../viewport/viewport.js';
import {
  areaToDesktopPixel,
  crosshairStep,
  maskHit,
  movedCrosshair,
  pointItem,
  rectBetween,
  shownDesktop,
  toAnnotation,
} from './geometry.js';

const desktop = { width: 2560, height: 1440 };

describe('areaToDesktopPixel', () => {
  it('maps through the viewport and the picture origin, rounding down', () => {
    // Half size, the picture 40 px from the area's left and 10 px down, whole desktop shown.
    const vp: Viewport = { vx: 0, vy: 0, vw: 2560, vh: 1440, scale: 0.5 };
    const origin = { x: 40, y: 10 };
    expect(areaToDesktopPixel({ x: 40, y: 10 }, origin, vp, desktop)).toEqual({ x: 0, y: 0 });
    expect(areaToDesktopPixel({ x: 40.4, y: 10.6 }, origin, vp, desktop)).toEqual({ x: 0, y: 1 });
    expect(areaToDesktopPixel({ x: 140.75, y: 60.2 }, origin, vp, desktop)).toEqual({
      x: 201,
      y: 100,
    });
  });

  it('maps a cropped, magnified viewport (vx, vy, scale) onto the right desktop pixels', () => {
    // Monitor 1 of a two-monitor layout shown at 1.5×: desktop = (1280, 200) + window / 1.5.
    const vp: Viewport = { vx: 1280, vy: 200, vw: 1280, vh: 720, scale: 1.5 };
    const origin = { x: 0, y: 0 };
    expect(areaToDesktopPixel({ x: 0, y: 0 }, origin, vp, desktop)).toEqual({ x: 1280, y: 200 });
    expect(areaToDesktopPixel({ x: 150, y: 75 }, origin, vp, desktop)).toEqual({
      x: 1380,
      y: 250,
    });
    expect(areaToDesktopPixel({ x: 1.49, y: 1.51 }, origin, vp, desktop)).toEqual({
      x: 1280,
      y: 201,
    });
  });

  it('clamps to what the window shows: the letterbox and beyond end at the picture edge', () => {
    const vp: Viewport = { vx: 1280, vy: 200, vw: 640, vh: 360, scale: 2 };
    const origin = { x: 100, y: 50 };
    expect(areaToDesktopPixel({ x: 0, y: 0 }, origin, vp, desktop)).toEqual({ x: 1280, y: 200 });
    expect(areaToDesktopPixel({ x: 99999, y: 99999 }, origin, vp, desktop)).toEqual({
      x: 1919,
      y: 559,
    });
    expect(areaToDesktopPixel({ x: -500, y: 400 }, origin, vp, desktop)).toEqual({
      x: 1280,
      y: 375,
    });
  });

  it('never leaves the desktop, even when the viewport reaches past it', () => {
    const vp: Viewport = { vx: 2400, vy: 1400, vw: 400, vh: 400, scale: 1 };
    expect(shownDesktop(vp, desktop)).toEqual({ x: 2400, y: 1400, width: 160, height: 40 });
    expect(areaToDesktopPixel({ x: 300, y: 300 }, { x: 0, y: 0 }, vp, desktop)).toEqual({
      x: 2559,
      y: 1439,
    });
  });

  it('inverts the overlay layer: a pixel centre drawn by desktopToWindow maps back to that pixel', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2559 }),
        fc.integer({ min: 0, max: 1439 }),
        fc.double({ min: 0.1, max: 6, noNaN: true }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 300 }),
        (x, y, scale, ox, oy) => {
          const vp: Viewport = { vx: 0, vy: 0, vw: 2560, vh: 1440, scale };
          const w = desktopToWindow(vp, { x: x + 0.5, y: y + 0.5 });
          const at = areaToDesktopPixel(
            { x: w.x + ox, y: w.y + oy },
            { x: ox, y: oy },
            vp,
            desktop,
          );
          expect(at).toEqual({ x, y });
        },
      ),
    );
  });
});

describe('items', () => {
  it('a drag spans both corner pixels, whichever way it went', () => {
    const down = { x: 300, y: 200 };
    const up = { x: 100, y: 250 };
    expect(rectBetween(down, up)).toEqual({ kind: 'rect', x: 100, y: 200, width: 201, height: 51 });
    expect(rectBetween(up, down)).toEqual(rectBetween(down, up));
    expect(rectBetween(down, down)).toMatchObject({ width: 1, height: 1 });
  });

  it('the keyboard crosshair moves by 10, 100 with Shift, 1 with Ctrl, and stays on the picture', () => {
    const vp: Viewport = { vx: 0, vy: 0, vw: 2560, vh: 1440, scale: 0.5 };
    expect(crosshairStep({ shiftKey: false, ctrlKey: false })).toBe(10);
    expect(crosshairStep({ shiftKey: true, ctrlKey: false })).toBe(100);
    expect(crosshairStep({ shiftKey: false, ctrlKey: true })).toBe(1);
    expect(movedCrosshair({ x: 5, y: 5 }, 'ArrowLeft', 10, vp, desktop)).toEqual({ x: 0, y: 5 });
    expect(movedCrosshair({ x: 5, y: 5 }, 'ArrowDown', 100, vp, desktop)).toEqual({ x: 5, y: 105 });
    expect(movedCrosshair({ x: 2555, y: 5 }, 'ArrowRight', 10, vp, desktop)).toEqual({
      x: 2559,
      y: 5,
    });
    expect(movedCrosshair({ x: 5, y: 5 }, 'Enter', 10, vp, desktop)).toBeUndefined();
  });

  it('finds the privacy mask an item touches', () => {
    const masks = [{ x: 100, y: 100, width: 50, height: 50, label: 'bank' }];
    expect(maskHit(pointItem({ x: 149, y: 149 }), masks)?.label).toBe('bank');
    expect(maskHit(pointItem({ x: 150, y: 149 }), masks)).toBeUndefined();
    expect(maskHit(rectBetween({ x: 0, y: 0 }, { x: 100, y: 100 }), masks)?.label).toBe('bank');
    expect(maskHit(rectBetween({ x: 0, y: 0 }, { x: 99, y: 400 }), masks)).toBeUndefined();
  });
});

describe('toAnnotation', () => {
  // Two monitors side by side, the second lower and shorter (an L-shaped gap below-left).
  const monitors = [
    { index: 0, x: 0, y: 0, width: 1280, height: 1440 },
    { index: 1, x: 1280, y: 400, width: 1280, height: 1040 },
  ];

  it('gives the monitor that holds the point or the rectangle’s centre', () => {
    expect(toAnnotation({ ...pointItem({ x: 1279, y: 10 }), note: '' }, desktop, monitors)).toEqual(
      { kind: 'point', x: 1279, y: 10, monitor_index: 0 },
    );
    expect(
      toAnnotation({ ...pointItem({ x: 1280, y: 500 }), note: '' }, desktop, monitors),
    ).toEqual({ kind: 'point', x: 1280, y: 500, monitor_index: 1 });
    // Mostly on monitor 0, but its centre (1300, 600) is on monitor 1.
    expect(
      toAnnotation(
        { ...rectBetween({ x: 1000, y: 500 }, { x: 1601, y: 701 }), note: 'save' },
        desktop,
        monitors,
      ),
    ).toEqual({
      kind: 'rect',
      x: 1000,
      y: 500,
      width: 602,
      height: 202,
      note: 'save',
      monitor_index: 1,
    });
    // In the gap above monitor 1: the nearest monitor.
    expect(
      toAnnotation({ ...pointItem({ x: 2000, y: 100 }), note: '' }, desktop, monitors)
        ?.monitor_index,
    ).toBe(1);
  });

  it('keeps notes verbatim (markup too) and leaves blank ones out', () => {
    const note = '  <b>html</b> & "quotes"  ';
    expect(toAnnotation({ ...pointItem({ x: 1, y: 2 }), note }, desktop, monitors)?.note).toBe(
      note,
    );
    expect(toAnnotation({ ...pointItem({ x: 1, y: 2 }), note: '   ' }, desktop, monitors)).toEqual({
      kind: 'point',
      x: 1,
      y: 2,
      monitor_index: 0,
    });
  });

  it('clamps to the desktop (it may have shrunk meanwhile) and drops what falls off it', () => {
    const small = { width: 1000, height: 800 };
    expect(
      toAnnotation(
        { ...rectBetween({ x: 900, y: 700 }, { x: 1200, y: 900 }), note: '' },
        small,
        [],
      ),
    ).toEqual({ kind: 'rect', x: 900, y: 700, width: 100, height: 100, monitor_index: 0 });
    expect(toAnnotation({ ...pointItem({ x: 1000, y: 10 }), note: '' }, small, [])).toBeUndefined();
  });
});
