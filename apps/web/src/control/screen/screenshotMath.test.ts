// Screenshot region and size rules: explicit regions (clamped, monitor-relative), full screen,
// a monitor, the visible default, scale and max_dimension, and empty regions as clear errors.
import { parseToolArgs, type ToolArgs } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { currentMonitors } from '../monitors.js';
import { captureScale, planCapture } from './screenshotMath.js';

const desktop = { width: 1280, height: 800 };
const monitors = currentMonitors(desktop, 0.5);
const visible = { x: 0, y: 0, width: 1280, height: 800 };

function shot(raw: unknown): ToolArgs<'take_screenshot'> {
  const parsed = parseToolArgs('take_screenshot', raw);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

describe('planCapture', () => {
  it('captures the whole desktop by default (the seed: full_screen defaults to true)', () => {
    expect(
      planCapture(shot({}), desktop, monitors, { x: 100, y: 50, width: 400, height: 300 }),
    ).toEqual({
      region: { x: 0, y: 0, width: 1280, height: 800 },
      monitorIndex: 0,
      scale: 1,
      width: 1280,
      height: 800,
    });
  });

  it('captures what the person sees with full_screen=false', () => {
    expect(
      planCapture(shot({ full_screen: false }), desktop, monitors, {
        x: 100,
        y: 50,
        width: 400,
        height: 300,
      }),
    ).toMatchObject({ region: { x: 100, y: 50, width: 400, height: 300 }, monitorIndex: 0 });
  });

  it('reports the monitor that holds the centre, and captures one monitor of two', () => {
    const two = [
      { index: 0, x: 0, y: 0, width: 640, height: 800, scale: 1 },
      { index: 1, x: 640, y: 0, width: 640, height: 800, scale: 1 },
    ];
    expect(
      planCapture(shot({ region: { x: 600, y: 0, width: 100, height: 10 } }), desktop, two, visible)
        .monitorIndex,
    ).toBe(1);
    expect(planCapture(shot({ monitor_index: 1 }), desktop, two, visible)).toMatchObject({
      region: { x: 640, y: 0, width: 640, height: 800 },
      monitorIndex: 1,
    });
    expect(
      planCapture(
        shot({ monitor_index: 1, region: { x: 0, y: 0, width: 10, height: 10 } }),
        desktop,
        two,
        visible,
      ).region,
    ).toEqual({ x: 640, y: 0, width: 10, height: 10 });
  });

  it('enlarges up to scale 4, the longer side capped at 8192', () => {
    expect(
      planCapture(
        shot({ region: { x: 0, y: 0, width: 100, height: 50 }, scale: 4 }),
        desktop,
        monitors,
        visible,
      ),
    ).toMatchObject({ scale: 4, width: 400, height: 200 });
    expect(
      planCapture(shot({ scale: 4 }), { width: 3840, height: 1080 }, monitors, visible),
    ).toMatchObject({
      width: 8192,
    });
  });

  it('clamps a region to the desktop and scales it', () => {
    const plan = planCapture(
      shot({ region: { x: 1200, y: 700, width: 200, height: 200 }, scale: 0.5 }),
      desktop,
      monitors,
      visible,
    );
    expect(plan).toMatchObject({
      region: { x: 1200, y: 700, width: 80, height: 100 },
      width: 40,
      height: 50,
    });
  });

  it('reads a region relative to the monitor and reports the monitor', () => {
    const plan = planCapture(
      shot({ region: { x: 10, y: 10, width: 10, height: 10 }, monitor_index: 0 }),
      desktop,
      monitors,
      visible,
    );
    expect(plan.monitorIndex).toBe(0);
    expect(planCapture(shot({ monitor_index: 0 }), desktop, monitors, visible).region).toEqual(
      visible,
    );
  });

  it('fits max_dimension on the longer side', () => {
    const plan = planCapture(
      shot({ full_screen: true, max_dimension: 640 }),
      desktop,
      monitors,
      visible,
    );
    expect(plan).toMatchObject({ scale: 0.5, width: 640, height: 400, monitorIndex: 0 });
    // max_dimension never enlarges
    expect(captureScale({ x: 0, y: 0, width: 100, height: 100 }, 0.5, 8192)).toBe(0.5);
  });

  it('never makes an image smaller than one pixel', () => {
    const plan = planCapture(
      shot({ region: { x: 0, y: 0, width: 1, height: 1 }, scale: 0.1 }),
      desktop,
      monitors,
      visible,
    );
    expect(plan).toMatchObject({ width: 1, height: 1 });
  });

  it('refuses a region entirely off the desktop and an unknown monitor', () => {
    expect(() =>
      planCapture(
        shot({ region: { x: 5000, y: 0, width: 10, height: 10 } }),
        desktop,
        monitors,
        visible,
      ),
    ).toThrow(/outside the desktop/);
    expect(() => planCapture(shot({ monitor_index: 1 }), desktop, monitors, visible)).toThrow(
      /no monitor 1/,
    );
  });
});
