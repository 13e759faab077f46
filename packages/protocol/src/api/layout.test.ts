// The monitor layout schema and its helpers: what a layout may be (whole pixels inside the
// largest desktop, monitors that touch but never overlap, a scale the viewer can show, masks on
// the layout), the desktop size it asks for, and the viewer URL of each monitor.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatZodIssues } from '../errors.js';
import {
  LayoutAnswer,
  MAX_DESKTOP_PX,
  MonitorLayout,
  VIEWER_URL_PARAMS,
  layoutBounds,
  monitorScale,
  viewerUrlFor,
  type LayoutMonitor,
} from './layout.js';

const left: LayoutMonitor = { x: 0, y: 0, width: 1920, height: 1080, label: 'left' };
const right: LayoutMonitor = { x: 1920, y: 0, width: 1280, height: 1024 };

function issues(input: unknown): string[] {
  const parsed = MonitorLayout.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.join('.')}: ${formatZodIssues([i])}`);
}

describe('MonitorLayout', () => {
  it('accepts monitors side by side, fills in no masks, keeps labels and screens', () => {
    const layout = {
      monitors: [{ ...left, screen: { width: 1920, height: 1080 } }, right],
    };
    expect(MonitorLayout.parse(layout)).toEqual({ ...layout, masks: [] });
  });

  it('accepts masks anywhere inside the bounds, also between monitors', () => {
    const layout = {
      monitors: [left, { ...right, y: 1080 }],
      masks: [{ x: 3000, y: 0, width: 200, height: 1080, label: 'gap' }],
    };
    expect(issues(layout)).toEqual([]);
  });

  it('refuses overlapping monitors and names the later one', () => {
    expect(issues({ monitors: [left, { ...right, x: 1919 }] })).toEqual([
      expect.stringMatching(/^monitors\.1: .*overlaps monitor 0 .*may touch but not overlap/),
    ]);
    // Touching edges are fine, in either direction.
    expect(issues({ monitors: [left, { ...right, x: 0, y: 1080 }] })).toEqual([]);
  });

  it('refuses rectangles past the largest desktop, masks off the layout and bad numbers', () => {
    expect(issues({ monitors: [{ x: MAX_DESKTOP_PX, y: 0, width: 1, height: 1 }] })).toEqual([
      expect.stringMatching(/^monitors\.0\.width: .*past the largest desktop/),
    ]);
    expect(issues({ monitors: [left], masks: [{ x: 0, y: 1000, width: 10, height: 81 }] })).toEqual(
      [expect.stringMatching(/^masks\.0: .*reaches outside the layout \(1920 × 1080\)/)],
    );
    expect(issues({ monitors: [{ ...left, x: -1 }] })[0]).toMatch(/^monitors\.0\.x: /);
    expect(issues({ monitors: [{ ...left, width: 0 }] })[0]).toMatch(/^monitors\.0\.width: /);
    expect(issues({ monitors: [{ ...left, y: 1.5 }] })[0]).toMatch(/integer/);
    expect(issues({ monitors: [] })[0]).toMatch(/^monitors: /);
    expect(
      issues({ monitors: Array.from({ length: 17 }, (_, i) => ({ ...left, x: i })) })[0],
    ).toMatch(/^monitors: /);
    expect(issues({ monitors: [left], extra: 1 })[0]).toMatch(/extra: is not a known field/);
    expect(issues({ monitors: [{ ...left, label: '' }] })[0]).toMatch(/^monitors\.0\.label: /);
    expect(issues({ monitors: [{ ...left, label: 'x'.repeat(65) }] })[0]).toMatch(/64/);
  });

  it('refuses a scale the viewer cannot show', () => {
    const tiny = { x: 0, y: 0, width: 100, height: 100, screen: { width: 1000, height: 1000 } };
    expect(issues({ monitors: [tiny] })).toEqual([
      expect.stringMatching(/^monitors\.0\.width: .*scale 10\b.*make it wider/),
    ]);
    const huge = { x: 0, y: 0, width: 8000, height: 100, screen: { width: 1000, height: 1000 } };
    expect(issues({ monitors: [huge] })).toEqual([
      expect.stringMatching(/scale 0\.125.*make it narrower/),
    ]);
  });

  it('is what GET /api/layout answers before the first save', () => {
    expect(LayoutAnswer.parse({ layout: null, updated_at: null, desktop: null }).layout).toBeNull();
  });
});

describe('layoutBounds', () => {
  it('is the bounding box from 0,0', () => {
    expect(layoutBounds({ monitors: [left, right] })).toEqual({ width: 3200, height: 1080 });
    expect(layoutBounds({ monitors: [{ x: 100, y: 200, width: 10, height: 20 }] })).toEqual({
      width: 110,
      height: 220,
    });
  });

  it('holds every monitor of any valid layout', () => {
    const rect = fc.record({
      x: fc.integer({ min: 0, max: 10_000 }),
      y: fc.integer({ min: 0, max: 10_000 }),
      width: fc.integer({ min: 1, max: 10_000 }),
      height: fc.integer({ min: 1, max: 10_000 }),
    });
    fc.assert(
      fc.property(fc.array(rect, { minLength: 1, maxLength: 16 }), (monitors) => {
        const bounds = layoutBounds({ monitors });
        for (const m of monitors) {
          expect(m.x + m.width).toBeLessThanOrEqual(bounds.width);
          expect(m.y + m.height).toBeLessThanOrEqual(bounds.height);
        }
        expect(monitors.some((m) => m.x + m.width === bounds.width)).toBe(true);
        expect(monitors.some((m) => m.y + m.height === bounds.height)).toBe(true);
      }),
    );
  });
});

describe('viewerUrlFor', () => {
  it('names the viewport, the scale from the screen and the index', () => {
    const withScreen = { ...right, screen: { width: 2560, height: 2048 } };
    expect(viewerUrlFor(withScreen, 1)).toBe('?vx=1920&vy=0&vw=1280&vh=1024&scale=2&monitor=1');
    expect(monitorScale(withScreen)).toBe(2);
  });

  it('leaves the scale out when the screen is unknown (the window fits)', () => {
    expect(viewerUrlFor(left, 0)).toBe('?vx=0&vy=0&vw=1920&vh=1080&monitor=0');
  });

  it('rounds the scale to four decimals and uses the shared parameter names', () => {
    const url = viewerUrlFor({ ...left, screen: { width: 1280, height: 720 } }, 3);
    const params = new URLSearchParams(url);
    expect(params.get(VIEWER_URL_PARAMS.scale)).toBe('0.6667');
    expect([...params.keys()]).toEqual(Object.values(VIEWER_URL_PARAMS));
  });
});
