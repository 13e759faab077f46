// The layout editor's state and the events that change it (a reducer, tested without a DOM): the
// monitors — one per physical screen, with the screen's size — and the privacy masks as the person
// arranges them, and whether that differs from what the bridge has. Converts to and from the
// protocol's MonitorLayout.
import {
  MAX_LAYOUT_MONITORS,
  MAX_PRIVACY_MASKS,
  layoutBounds,
  type MonitorLayout,
  type PutLayoutBody,
} from '@overlay-companion/protocol';
import { MIN_RECT_PX, suggestLayout, type Extent, type Rect } from './geometry.js';

export interface EditorMonitor extends Rect {
  /** '' = no label. */
  label: string;
  /** The physical screen's size in CSS pixels (detected or typed in); null = unknown. */
  screen: Extent | null;
}

export interface EditorMask extends Rect {
  label: string;
}

export interface EditorState {
  monitors: EditorMonitor[];
  masks: EditorMask[];
  /** Changed since it was loaded or saved. */
  dirty: boolean;
}

export type TargetKind = 'monitor' | 'mask';
export interface Target {
  kind: TargetKind;
  index: number;
}

export interface DetectedScreen extends Extent {
  label: string;
}

export type EditorEvent =
  | { type: 'loaded'; layout: MonitorLayout | null; firstScreen: Extent; desktop: Extent | null }
  | { type: 'rectChanged'; target: Target; rect: Rect }
  | { type: 'labelChanged'; target: Target; label: string }
  | { type: 'screenChanged'; index: number; screen: Extent | null }
  | { type: 'screenAdded'; screen: Extent }
  | { type: 'monitorRemoved'; index: number }
  | { type: 'screensDetected'; screens: readonly DetectedScreen[]; desktop: Extent | null }
  | { type: 'suggested'; desktop: Extent | null }
  | { type: 'maskAdded'; rect: Rect }
  | { type: 'maskRemoved'; index: number }
  | { type: 'saved'; layout: MonitorLayout };

export const EMPTY_EDITOR: EditorState = { monitors: [], masks: [], dirty: false };

export function fromLayout(layout: MonitorLayout): EditorState {
  return {
    monitors: layout.monitors.map((m) => ({
      x: m.x,
      y: m.y,
      width: m.width,
      height: m.height,
      label: m.label ?? '',
      screen: m.screen ?? null,
    })),
    masks: layout.masks.map((m) => ({ ...m, label: m.label ?? '' })),
    dirty: false,
  };
}

/** What PUT /api/layout gets: labels only when given, screens only when known. */
export function toLayout(state: Pick<EditorState, 'monitors' | 'masks'>): PutLayoutBody['layout'] {
  const label = (text: string) => (text.trim() === '' ? {} : { label: text.trim() });
  return {
    monitors: state.monitors.map((m) => ({
      x: m.x,
      y: m.y,
      width: m.width,
      height: m.height,
      ...label(m.label),
      ...(m.screen === null ? {} : { screen: m.screen }),
    })),
    masks: state.masks.map((m) => ({
      x: m.x,
      y: m.y,
      width: m.width,
      height: m.height,
      ...label(m.label),
    })),
  };
}

/** Monitors for `screens` as suggested for `desktop`, keeping labels where they were. */
function suggested(
  screens: readonly { screen: Extent | null; label: string }[],
  desktop: Extent | null,
): EditorMonitor[] {
  // A monitor whose screen is unknown is suggested at its own size.
  const sizes = screens.map((s) => s.screen ?? { width: 1920, height: 1080 });
  return suggestLayout(sizes, desktop).map((rect, i) => ({
    ...rect,
    label: screens[i]?.label ?? '',
    screen: screens[i]?.screen ?? null,
  }));
}

const changed = (state: EditorState, next: Partial<EditorState>): EditorState => ({
  ...state,
  ...next,
  dirty: true,
});

export function editorReducer(state: EditorState, event: EditorEvent): EditorState {
  switch (event.type) {
    case 'loaded':
      if (event.layout !== null) return fromLayout(event.layout);
      // Nothing saved yet: this browser's screen over the desktop, to start from.
      return {
        monitors: suggested([{ screen: event.firstScreen, label: '' }], event.desktop),
        masks: [],
        dirty: true,
      };
    case 'rectChanged': {
      const { kind, index } = event.target;
      if (kind === 'monitor') {
        return changed(state, {
          monitors: state.monitors.map((m, i) => (i === index ? { ...m, ...event.rect } : m)),
        });
      }
      return changed(state, {
        masks: state.masks.map((m, i) => (i === index ? { ...m, ...event.rect } : m)),
      });
    }
    case 'labelChanged': {
      const { kind, index } = event.target;
      const relabel = <T extends { label: string }>(list: T[]) =>
        list.map((item, i) => (i === index ? { ...item, label: event.label } : item));
      return kind === 'monitor'
        ? changed(state, { monitors: relabel(state.monitors) })
        : changed(state, { masks: relabel(state.masks) });
    }
    case 'screenChanged':
      return changed(state, {
        monitors: state.monitors.map((m, i) => {
          if (i !== event.index) return m;
          if (event.screen === null) return { ...m, screen: null };
          // The monitor takes the screen's shape, keeping its width.
          const height = Math.max(
            MIN_RECT_PX,
            Math.round((m.width * event.screen.height) / event.screen.width),
          );
          return { ...m, height, screen: event.screen };
        }),
      });
    case 'screenAdded': {
      if (state.monitors.length >= MAX_LAYOUT_MONITORS) return state;
      // To the right of everything, at the screen's own size.
      const bounds = layoutBounds({ monitors: state.monitors });
      return changed(state, {
        monitors: [
          ...state.monitors,
          { x: bounds.width, y: 0, ...event.screen, label: '', screen: event.screen },
        ],
      });
    }
    case 'monitorRemoved':
      if (state.monitors.length <= 1) return state;
      return changed(state, { monitors: state.monitors.filter((_, i) => i !== event.index) });
    case 'screensDetected':
      return changed(state, {
        monitors: suggested(
          event.screens
            .slice(0, MAX_LAYOUT_MONITORS)
            .map((s) => ({ screen: { width: s.width, height: s.height }, label: s.label })),
          event.desktop,
        ),
      });
    case 'suggested':
      return changed(state, { monitors: suggested(state.monitors, event.desktop) });
    case 'maskAdded':
      if (state.masks.length >= MAX_PRIVACY_MASKS) return state;
      return changed(state, { masks: [...state.masks, { ...event.rect, label: '' }] });
    case 'maskRemoved':
      return changed(state, { masks: state.masks.filter((_, i) => i !== event.index) });
    case 'saved':
      return fromLayout(event.layout);
    default: {
      const never: never = event;
      throw new Error(`unknown layout editor event ${JSON.stringify(never)}`);
    }
  }
}

/** "Monitor 2 “left”" / "Mask 1" — how the page names a rectangle. */
export function targetName(kind: TargetKind, index: number, label: string): string {
  const base = `${kind === 'monitor' ? 'Monitor' : 'Mask'} ${index + 1}`;
  return label.trim() === '' ? base : `${base} “${label.trim()}”`;
}
