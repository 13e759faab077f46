// The layout editor's events: starting from what the bridge has (or this browser's screen), screens
// added, changed, detected and removed, masks added and removed, and the layout the page sends —
// which the protocol's schema accepts as it is.
import { MonitorLayout } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_EDITOR,
  editorReducer,
  fromLayout,
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

const loaded = (layout: MonitorLayout | null, desktop = { width: 1280, height: 800 }) =>
  editorReducer(EMPTY_EDITOR, {
    type: 'loaded',
    layout,
    firstScreen: { width: 1920, height: 1080 },
    desktop,
  });

describe('editorReducer', () => {
  it('starts from the saved layout, unchanged', () => {
    const state = loaded(saved);
    expect(state.dirty).toBe(false);
    expect(toLayout(state)).toEqual(saved);
  });

  it('starts from this browser’s screen fitted to the desktop when nothing is saved', () => {
    const state = loaded(null);
    expect(state.dirty).toBe(true);
    expect(state.monitors).toEqual([
      { x: 0, y: 0, width: 1280, height: 720, label: '', screen: { width: 1920, height: 1080 } },
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
    expect(state.dirty).toBe(true);
  });

  it('never removes the last monitor', () => {
    const one = loaded(null);
    expect(editorReducer(one, { type: 'monitorRemoved', index: 0 })).toBe(one);
  });

  it('lays detected screens out for the desktop, labelled as the browser names them', () => {
    const state = editorReducer(loaded(saved), {
      type: 'screensDetected',
      screens: [
        { width: 1920, height: 1080, label: 'DELL U2415' },
        { width: 1920, height: 1080, label: 'Built-in' },
      ],
      desktop: { width: 3840, height: 1080 },
    });
    expect(toLayout(state).monitors).toEqual([
      {
        x: 0,
        y: 0,
        width: 1920,
        height: 1080,
        label: 'DELL U2415',
        screen: { width: 1920, height: 1080 },
      },
      {
        x: 1920,
        y: 0,
        width: 1920,
        height: 1080,
        label: 'Built-in',
        screen: { width: 1920, height: 1080 },
      },
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
    const state = editorReducer(loaded(null), { type: 'suggested', desktop: null });
    const layout = MonitorLayout.parse(toLayout(state));
    const after = editorReducer(state, { type: 'saved', layout });
    expect(after).toEqual(fromLayout(layout));
    expect(after.dirty).toBe(false);
  });
});
