// The layout editor's state and the events that change it (a reducer, tested without a DOM): the
// monitors — one per physical screen, with the screen's size — and the privacy masks as the person
// arranges them. Converts to and from the protocol's MonitorLayout, and says whether the editor
// holds what the bridge has (by value: an untouched page, or a change undone, is not unsaved).
import {
  MAX_LAYOUT_MONITORS,
  MAX_PRIVACY_MASKS,
  layoutBounds,
  type MonitorLayout,
  type PutLayoutBody,
} from '@overlay-companion/protocol';
import {
  MIN_RECT_PX,
  suggestLayout,
  type Extent,
  type PlacedScreen,
  type Rect,
} from './geometry.js';
import { screenFor } from './screenDetails.js';

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
}

export type TargetKind = 'monitor' | 'mask';
export interface Target {
  kind: TargetKind;
  index: number;
}

/** A screen the browser listed: its size, its name and where it is among the others. */
export interface DetectedScreen extends Extent {
  label: string;
  left: number;
  top: number;
}

export type EditorEvent =
  | { type: 'loaded'; layout: MonitorLayout | null; firstScreen: Extent }
  | { type: 'rectChanged'; target: Target; rect: Rect }
  | { type: 'labelChanged'; target: Target; label: string }
  | { type: 'screenChanged'; index: number; screen: Extent | null }
  | { type: 'screenAdded'; screen: Extent }
  | { type: 'monitorRemoved'; index: number }
  | { type: 'screensDetected'; screens: readonly DetectedScreen[] }
  /** `detected`: the screens the browser listed, if it did (their arrangement is kept). */
  | { type: 'suggested'; detected: readonly DetectedScreen[] }
  | { type: 'maskAdded'; rect: Rect }
  | { type: 'maskRemoved'; index: number }
  | { type: 'saved'; layout: MonitorLayout };

export const EMPTY_EDITOR: EditorState = { monitors: [], masks: [] };

export function fromLayout(layout: MonitorLayout): EditorState {
  return {
    monitors: layout.monitors.map((m) => ({
      x: m.x,
      y: m.y,
      width: m.width,
      height: m.height,
      label: m.label ?? '',
      screen: m.screen === undefined ? null : { width: m.screen.width, height: m.screen.height },
    })),
    masks: layout.masks.map((m) => ({
      x: m.x,
      y: m.y,
      width: m.width,
      height: m.height,
      label: m.label ?? '',
    })),
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

/**
 * Whether the editor holds exactly `saved` — compared by value, as PUT would send it (labels
 * trimmed, empty ones left out), so opening the page and doing nothing, or changing something and
 * changing it back, leaves nothing unsaved.
 */
export function sameLayout(
  state: Pick<EditorState, 'monitors' | 'masks'>,
  saved: MonitorLayout,
): boolean {
  // toLayout builds every object with its keys in one order, so equal layouts print equally.
  return JSON.stringify(toLayout(state)) === JSON.stringify(toLayout(fromLayout(saved)));
}

/** Monitors for `screens` as suggested (at 1:1), keeping labels where they were. */
function suggested(
  screens: readonly { screen: Extent | null; label: string; at?: PlacedScreen | undefined }[],
): EditorMonitor[] {
  // A monitor whose screen is unknown is suggested at a common screen's size.
  const placed = screens.map((s) => ({
    ...(s.screen ?? { width: 1920, height: 1080 }),
    left: s.at?.left,
    top: s.at?.top,
  }));
  return suggestLayout(placed).map((rect, i) => ({
    ...rect,
    label: screens[i]?.label ?? '',
    screen: screens[i]?.screen ?? null,
  }));
}

/**
 * Where the browser said monitor `index`'s screen is: the detected screen it goes with (by label,
 * else by position in the list), if that one is still the monitor's size (a size typed in since
 * makes the position meaningless).
 */
function detectedPlace(
  monitor: EditorMonitor,
  index: number,
  detected: readonly DetectedScreen[],
): PlacedScreen | undefined {
  const screen = screenFor(detected, monitor, index);
  if (screen === undefined || monitor.screen === null) return undefined;
  const same = screen.width === monitor.screen.width && screen.height === monitor.screen.height;
  return same ? screen : undefined;
}

export function editorReducer(state: EditorState, event: EditorEvent): EditorState {
  switch (event.type) {
    case 'loaded':
      if (event.layout !== null) return fromLayout(event.layout);
      // Nothing saved yet: this browser's screen at 1:1, to start from.
      return { monitors: suggested([{ screen: event.firstScreen, label: '' }]), masks: [] };
    case 'rectChanged': {
      const { kind, index } = event.target;
      if (kind === 'monitor') {
        return {
          ...state,
          monitors: state.monitors.map((m, i) => (i === index ? { ...m, ...event.rect } : m)),
        };
      }
      return {
        ...state,
        masks: state.masks.map((m, i) => (i === index ? { ...m, ...event.rect } : m)),
      };
    }
    case 'labelChanged': {
      const { kind, index } = event.target;
      const relabel = <T extends { label: string }>(list: T[]) =>
        list.map((item, i) => (i === index ? { ...item, label: event.label } : item));
      return kind === 'monitor'
        ? { ...state, monitors: relabel(state.monitors) }
        : { ...state, masks: relabel(state.masks) };
    }
    case 'screenChanged':
      return {
        ...state,
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
      };
    case 'screenAdded': {
      if (state.monitors.length >= MAX_LAYOUT_MONITORS) return state;
      // To the right of everything, at the screen's own size.
      const bounds = layoutBounds({ monitors: state.monitors });
      return {
        ...state,
        monitors: [
          ...state.monitors,
          { x: bounds.width, y: 0, ...event.screen, label: '', screen: event.screen },
        ],
      };
    }
    case 'monitorRemoved':
      if (state.monitors.length <= 1) return state;
      return { ...state, monitors: state.monitors.filter((_, i) => i !== event.index) };
    case 'screensDetected':
      return {
        ...state,
        monitors: suggested(
          event.screens
            .slice(0, MAX_LAYOUT_MONITORS)
            .map((s) => ({ screen: { width: s.width, height: s.height }, label: s.label, at: s })),
        ),
      };
    case 'suggested':
      return {
        ...state,
        monitors: suggested(
          state.monitors.map((m, i) => ({ ...m, at: detectedPlace(m, i, event.detected) })),
        ),
      };
    case 'maskAdded':
      if (state.masks.length >= MAX_PRIVACY_MASKS) return state;
      return { ...state, masks: [...state.masks, { ...event.rect, label: '' }] };
    case 'maskRemoved':
      return { ...state, masks: state.masks.filter((_, i) => i !== event.index) };
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
