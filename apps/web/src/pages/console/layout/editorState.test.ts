// The layout editor's events: starting from what the bridge has (or this browser's screen), screens
// added, changed, detected and removed, Suggest at 1:1, masks added and removed, the layout the
// page sends — which the protocol's schema accepts as it is — and whether it differs from the saved
// one (by value).
import { MonitorLayout, layoutBounds, monitorScale } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_EDITOR,
  editorReducer,
  fromLayout,
  sameLayout,
  toLayout,
  type EditorState,
} from './editorState.js';

const saved = MonitorLayout.parse({
  monitors: [
    { x: 0, y: 0, width: 1920, height: 1080, label: 'left', screen: { width: 1920, height: 1080 } },
    { x: 1920, y: 0, width: 1280, height: 1024 },
  ],
  masks: [{ x: 10, y: 10, width: 100, height: 100, label: 'mail' }],
});

const loaded = (layout: MonitorLayout | null) =>
  editorReducer(EMPTY_EDITOR, {
    type: 'loaded',
    layout,
    firstScreen: { width: 1920, height: 1080 },
  });

describe('editorReducer', () => {
  it('starts from the saved layout, unchanged', () => {
    const state = loaded(saved);
    expect(sameLayout(state, saved)).toBe(true);
    expect(toLayout(state)).toEqual(saved);
  });

  it('starts from this browser’s screen at 1:1 when nothing is saved', () => {
    const state = loaded(null);
    expect(state.monitors).toEqual([
      { x: 0, y: 0, width: 1920, height: 1080, label: '', screen: { width: 1920, height: 1080 } },
    ]);
  });

  it('adds a typed-in screen to the right, changes its size keeping the width, removes it', () => {
    let state: EditorState = loaded(saved);
    state = editorReducer(state, { type: 'screenAdded', screen: { width: 1024, height: 768 } });
    expect(state.monitors[2]).toEqual({
      x: 3200,
      y: 0,
      width: 1024,
      height: 768,
      label: '',
      screen: { width: 1024, height: 768 },
    });
    state = editorReducer(state, {
      type: 'screenChanged',
      index: 2,
      screen: { width: 2048, height: 1024 },
    });
    expect(state.monitors[2]).toMatchObject({ width: 1024, height: 512 });
    state = editorReducer(state, { type: 'monitorRemoved', index: 0 });
    expect(state.monitors.map((m) => m.x)).toEqual([1920, 3200]);
    expect(sameLayout(state, saved)).toBe(false);
  });

  it('never removes the last monitor', () => {
    const one = loaded(null);
    expect(editorReducer(one, { type: 'monitorRemoved', index: 0 })).toBe(one);
  });

  it('lays detected screens out where they are at 1:1, labelled as the browser names them', () => {
    // A laptop below and right of the primary screen, which starts left of 0 in screen space.
    const state = editorReducer(loaded(saved), {
      type: 'screensDetected',
      screens: [
        { width: 2560, height: 1440, label: 'DELL U2715H', left: -2560, top: 0 },
        { width: 1440, height: 900, label: 'Built-in', left: 0, top: 540 },
      ],
    });
    expect(toLayout(state).monitors).toEqual([
      {
        x: 0,
        y: 0,
        width: 2560,
        height: 1440,
        label: 'DELL U2715H',
        screen: { width: 2560, height: 1440 },
      },
      {
        x: 2560,
        y: 540,
        width: 1440,
        height: 900,
        label: 'Built-in',
        screen: { width: 1440, height: 900 },
      },
    ]);
  });

  it('Suggest puts every monitor at its screen’s own size, scale 1, the desktop their bounding box', () => {
    const state = editorReducer(loaded(saved), { type: 'suggested', detected: [] });
    // The second monitor's screen was unknown: a common screen's size, shown fitted.
    expect(toLayout(state).monitors).toEqual([
      {
        x: 0,
        y: 0,
        width: 1920,
        height: 1080,
        label: 'left',
        screen: { width: 1920, height: 1080 },
      },
      { x: 1920, y: 0, width: 1920, height: 1080 },
    ]);
    const typed = editorReducer(
      editorReducer(loaded(null), { type: 'screenAdded', screen: { width: 1280, height: 1024 } }),
      { type: 'suggested', detected: [] },
    );
    expect(layoutBounds(typed)).toEqual({ width: 3200, height: 1080 });
    expect(toLayout(typed).monitors.map((m) => monitorScale(m))).toEqual([1, 1]);
  });

  it('Suggest keeps the detected arrangement for screens still at their detected size', () => {
    const detected = [
      { width: 1920, height: 1080, label: 'top', left: 0, top: -1080 },
      { width: 1920, height: 1080, label: 'bottom', left: 0, top: 0 },
    ];
    let state = editorReducer(loaded(null), { type: 'screensDetected', screens: detected });
    state = editorReducer(state, {
      type: 'rectChanged',
      target: { kind: 'monitor', index: 1 },
      rect: { x: 1920, y: 0, width: 1920, height: 1080 },
    });
    state = editorReducer(state, { type: 'suggested', detected });
    expect(state.monitors.map(({ x, y }) => [x, y])).toEqual([
      [0, 0],
      [0, 1080],
    ]);
    // A size typed in since: the browser's position no longer says where that screen is.
    state = editorReducer(state, {
      type: 'screenChanged',
      index: 1,
      screen: { width: 1280, height: 1024 },
    });
    state = editorReducer(state, { type: 'suggested', detected });
    expect(state.monitors.map(({ x, y, width }) => [x, y, width])).toEqual([
      [0, 0, 1920],
      [1920, 0, 1280],
    ]);
  });

  it('adds, relabels, moves and removes masks; labels are trimmed and empty ones left out', () => {
    let state = loaded(saved);
    state = editorReducer(state, {
      type: 'maskAdded',
      rect: { x: 500, y: 500, width: 50, height: 60 },
    });
    state = editorReducer(state, {
      type: 'labelChanged',
      target: { kind: 'mask', index: 1 },
      label: '  bank  ',
    });
    state = editorReducer(state, {
      type: 'rectChanged',
      target: { kind: 'mask', index: 1 },
      rect: { x: 600, y: 500, width: 50, height: 60 },
    });
    state = editorReducer(state, {
      type: 'labelChanged',
      target: { kind: 'mask', index: 0 },
      label: '   ',
    });
    expect(toLayout(state).masks).toEqual([
      { x: 10, y: 10, width: 100, height: 100 },
      { x: 600, y: 500, width: 50, height: 60, label: 'bank' },
    ]);
    state = editorReducer(state, { type: 'maskRemoved', index: 0 });
    expect(state.masks).toHaveLength(1);
  });

  it('sends what the schema accepts, and a save makes it clean again', () => {
    const state = editorReducer(loaded(null), { type: 'suggested', detected: [] });
    const layout = MonitorLayout.parse(toLayout(state));
    const after = editorReducer(state, { type: 'saved', layout });
    expect(after).toEqual(fromLayout(layout));
    expect(sameLayout(after, layout)).toBe(true);
  });
});

describe('sameLayout', () => {
  const move = (state: EditorState, x: number) =>
    editorReducer(state, {
      type: 'rectChanged',
      target: { kind: 'monitor', index: 1 },
      rect: { x, y: 0, width: 1280, height: 1024 },
    });

  it('compares by value: a change undone, or a copy of the saved layout, is not unsaved', () => {
    const state = loaded(saved);
    expect(sameLayout(move(state, 1930), saved)).toBe(false);
    expect(sameLayout(move(move(state, 1930), 1920), saved)).toBe(true);
    // The same layout as another object, its keys in another order (as JSON from the bridge).
    const copy = JSON.parse(
      JSON.stringify({ masks: saved.masks, monitors: saved.monitors.map((m) => ({ ...m })) }),
    ) as MonitorLayout;
    expect(sameLayout(state, copy)).toBe(true);
  });

  it('sees what PUT would send: a trimmed label is the same, a new label or mask is not', () => {
    const relabel = (state: EditorState, label: string) =>
      editorReducer(state, { type: 'labelChanged', target: { kind: 'monitor', index: 0 }, label });
    expect(sameLayout(relabel(loaded(saved), '  left '), saved)).toBe(true);
    expect(sameLayout(relabel(loaded(saved), 'right'), saved)).toBe(false);
    const masked = editorReducer(loaded(saved), {
      type: 'maskAdded',
      rect: { x: 0, y: 0, width: 20, height: 20 },
    });
    expect(sameLayout(masked, saved)).toBe(false);
    expect(sameLayout(editorReducer(masked, { type: 'maskRemoved', index: 1 }), saved)).toBe(true);
  });
});
