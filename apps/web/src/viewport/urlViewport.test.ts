import { describe, expect, it } from 'vitest';
import { cropViewport, parseCrop } from './urlViewport.js';
import { windowToDesktop, windowToDesktopPixel } from './viewport.js';

describe('viewer URL viewport', () => {
  it('is absent without vx/vy/vw/vh', () => {
    expect(parseCrop('')).toEqual({ crop: undefined });
    expect(parseCrop('?next=/x')).toEqual({ crop: undefined });
  });

  it('reads the seed parameters, with scale and monitor optional', () => {
    expect(parseCrop('?vx=1280&vy=0&vw=1280&vh=800&scale=1.5&monitor=1')).toEqual({
      crop: { vx: 1280, vy: 0, vw: 1280, vh: 800, scale: 1.5, monitor: 1 },
    });
    expect(parseCrop('?vx=0&vy=0&vw=640&vh=480')).toEqual({
      crop: { vx: 0, vy: 0, vw: 640, vh: 480, scale: undefined, monitor: undefined },
    });
  });

  it('refuses an incomplete or malformed set, naming the parameter', () => {
    expect(parseCrop('?vx=0&vy=0&vw=640')).toEqual({
      error: expect.stringContaining('vh is missing') as unknown,
    });
    expect(parseCrop('?vx=-5&vy=0&vw=640&vh=480')).toEqual({
      error: expect.stringContaining('vx must be a whole number') as unknown,
    });
    expect(parseCrop('?vx=0&vy=0&vw=0&vh=480')).toEqual({
      error: expect.stringContaining('vw') as unknown,
    });
    expect(parseCrop('?vx=0&vy=0&vw=640&vh=480&scale=9')).toEqual({
      error: expect.stringContaining('scale') as unknown,
    });
    expect(parseCrop('?vx=0&vy=0&vw=640&vh=480&scale=1e3')).toEqual({
      error: expect.stringContaining('scale must be a number') as unknown,
    });
  });

  it('window pixel (x, y) is desktop pixel (vx + x/scale, vy + y/scale)', () => {
    const { viewport, origin } = cropViewport(
      { width: 1920, height: 1080 },
      { vx: 1280, vy: 100, vw: 1280, vh: 720, scale: 1.5, monitor: undefined },
    );
    expect(origin).toEqual({ x: 0, y: 0 });
    expect(windowToDesktop(viewport, { x: 300, y: 150 })).toEqual({ x: 1480, y: 200 });
    expect(windowToDesktopPixel(viewport, { x: 1919, y: 1079 })).toEqual({ x: 2559, y: 819 });
    expect(windowToDesktopPixel(viewport, { x: 1920, y: 0 })).toBeUndefined();
  });

  it('fits the rectangle when no scale is given, centred', () => {
    const { viewport, origin } = cropViewport(
      { width: 1000, height: 1000 },
      { vx: 0, vy: 0, vw: 2000, vh: 1000, scale: undefined, monitor: undefined },
    );
    expect(viewport.scale).toBe(0.5);
    expect(origin).toEqual({ x: 0, y: 250 });
  });
});
