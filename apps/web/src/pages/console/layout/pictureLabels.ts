// The words on the layout editor's picture: each monitor's and mask's name (with its size and
// scale when there is room), and the desktop's and the layout's extents, sized with the browser's
// own text metrics (a canvas measureText in the page's font) and placed by labelSpots.ts so none
// covers another. The extents' labels keep their corners; the rectangles' labels go around them.
import { monitorScale } from '@overlay-companion/protocol';
import type { Extent } from './geometry.js';
import type { EditorState } from './editorState.js';
import { targetName } from './editorState.js';
import {
  placeLabels,
  shortName,
  type LabelRequest,
  type Measure,
  type Spot,
} from './labelSpots.js';

export interface PictureLabel extends Spot {
  key: string;
  kind: 'monitor' | 'mask' | 'extent';
  lines: readonly string[];
  inside: boolean;
}

/** layout.css .layout-label: font size and padding in rem, line height. */
const FONT_REM = 0.85;
const PAD_X_REM = 0.3;
const PAD_Y_REM = 0.1;
const LINE_HEIGHT = 1.25;

type Monitor = EditorState['monitors'][number];
type Mask = EditorState['masks'][number];

/** A monitor's details: where it is, and its screen and scale. */
export function monitorLines(m: Monitor): string[] {
  const s = monitorScale({ width: m.width, screen: m.screen ?? undefined });
  return [
    `${m.width} × ${m.height} at ${m.x}, ${m.y}`,
    s === undefined
      ? 'fits the window'
      : `screen ${m.screen?.width ?? 0} × ${m.screen?.height ?? 0}, scale ${s}`,
  ];
}

/** A mask's details: its size. */
export function maskLines(m: Mask): string[] {
  return [`${m.width} × ${m.height}`];
}

let context: CanvasRenderingContext2D | null = null;

/** The text's box as layout.css draws a label (bold, the page's font). */
function browserMeasure(): Measure {
  const root = parseFloat(getComputedStyle(document.documentElement).fontSize) || 14;
  const font = `${FONT_REM * root}px`;
  context ??= document.createElement('canvas').getContext('2d');
  if (context !== null) context.font = `600 ${font} ${getComputedStyle(document.body).fontFamily}`;
  const c = context;
  return (lines) => ({
    // A pixel or two of slack: canvas and layout round text widths differently.
    width: Math.ceil(
      Math.max(...lines.map((l) => c?.measureText(l).width ?? l.length * FONT_REM * root * 0.62)) +
        2 * PAD_X_REM * root +
        2,
    ),
    height: Math.ceil(lines.length * LINE_HEIGHT * FONT_REM * root + 2 * PAD_Y_REM * root),
  });
}

export function pictureLabels({
  state,
  desktop,
  bounds,
  scale,
  area,
}: {
  state: EditorState;
  desktop: Extent | null;
  /** The layout's extent when it differs from the desktop's. */
  bounds: Extent | null;
  scale: number;
  area: { width: number; height: number };
}): PictureLabel[] {
  if (scale === 0) return [];
  const measure = browserMeasure();
  const px = (value: number) => Math.round(value * scale);
  const fixed: PictureLabel[] = [];
  // The desktop now: in its extent's bottom-right corner.
  if (desktop !== null) {
    const lines = [`Desktop now: ${desktop.width} × ${desktop.height}`];
    const size = measure(lines);
    fixed.push({
      key: 'extent-desktop',
      kind: 'extent',
      lines,
      inside: true,
      ...size,
      x: Math.max(0, px(desktop.width) - size.width - 4),
      y: Math.max(0, px(desktop.height) - size.height - 2),
    });
  }
  // The layout's extent: under its outline, or inside its bottom-right corner at the picture's
  // bottom, or its top-right corner when the desktop's label is there.
  if (bounds !== null) {
    const lines = [`This layout: ${bounds.width} × ${bounds.height}`];
    const size = measure(lines);
    const x = Math.max(0, px(bounds.width) - size.width - 4);
    const tries = [px(bounds.height) + 2, px(bounds.height) - size.height - 2, 2];
    const y =
      tries.find(
        (top) =>
          top + size.height <= area.height &&
          !fixed.some(
            (f) =>
              Math.min(f.x + f.width, x + size.width) > Math.max(f.x, x) &&
              Math.min(f.y + f.height, top + size.height) > Math.max(f.y, top),
          ),
      ) ?? 2;
    fixed.push({ key: 'extent-bounds', kind: 'extent', lines, inside: true, ...size, x, y });
  }
  const view = (r: { x: number; y: number; width: number; height: number }): Spot => ({
    x: px(r.x),
    y: px(r.y),
    width: Math.max(1, px(r.width)),
    height: Math.max(1, px(r.height)),
  });
  const requests: (LabelRequest & { key: string; kind: 'monitor' | 'mask' })[] = [
    ...state.monitors.map((m, index) => {
      return {
        key: `monitor-${index}`,
        kind: 'monitor' as const,
        rect: view(m),
        name: targetName('monitor', index, m.label),
        short: shortName('monitor', index),
        lines: monitorLines(m),
      };
    }),
    ...state.masks.map((m, index) => ({
      key: `mask-${index}`,
      kind: 'mask' as const,
      rect: view(m),
      name: targetName('mask', index, m.label),
      short: shortName('mask', index),
      lines: maskLines(m),
    })),
  ];
  const placed = placeLabels(requests, measure, area, fixed);
  const labels: PictureLabel[] = [...fixed];
  requests.forEach((request, i) => {
    const spot = placed[i];
    if (spot === null || spot === undefined) return;
    const lines =
      spot.text === 'full'
        ? [request.name, ...request.lines]
        : [spot.text === 'name' ? request.name : request.short];
    labels.push({
      key: request.key,
      kind: request.kind,
      lines,
      inside: spot.inside,
      x: spot.x,
      y: spot.y,
      width: spot.width,
      height: spot.height,
    });
  });
  return labels;
}
