import { describe, expect, it } from 'vitest';
import { cropViewport, monitorWindowQuery, parseCrop, parseDesktopParam } from './urlViewport.js';
import { windowToDesktop } from './viewport.js';

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

describe('viewer URL desktop', () => {
  it('reads the desktop next to the viewport, and none means the default', () => {
    expect(parseDesktopParam('?vx=0&vy=0&vw=640&vh=480&desktop=dsk_studio')).toEqual({
      desktop: 'dsk_studio',
    });
    expect(parseDesktopParam('?vx=0&vy=0&vw=640&vh=480')).toEqual({ desktop: undefined });
  });

  it('refuses a malformed desktop instead of falling back to the default one', () => {
    for (const bad of ['?desktop=', '?desktop=a%2Fb', `?desktop=${'x'.repeat(65)}`]) {
      expect(parseDesktopParam(bad)).toEqual({
        error: expect.stringContaining('is not a desktop id') as unknown,
      });
    }
  });

  it("keeps the desktop in each monitor window's address", () => {
    const monitor = { x: 1280, y: 0, width: 1280, height: 800 };
    const query = monitorWindowQuery(monitor, 1, 'dsk_studio');
    const params = new URLSearchParams(query);
    expect(params.get('desktop')).toBe('dsk_studio');
    expect(parseCrop(query)).toEqual({
      crop: { vx: 1280, vy: 0, vw: 1280, vh: 800, scale: undefined, monitor: 1 },
    });
    expect(parseDesktopParam(query)).toEqual({ desktop: 'dsk_studio' });
    // A window without a desktop opens windows without one (the bridge picks the default).
    expect(new URLSearchParams(monitorWindowQuery(monitor, 1, undefined)).has('desktop')).toBe(
      false,
    );
  });
});
