// Interactive overlays: the topmost click_through:false overlay under a desktop pixel (click-
// through ones never catch), and the filter between the person's mouse and the desktop — a
// press on an interactive overlay and its release never reach the desktop, moves and the wheel
// do, and a button the desktop holds is always released; nothing catches while the person has
// taken over, nor while interactive overlays cover most of what the window shows.
import type { Overlay } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { overlayStore } from '../store/overlays.js';
import { viewportStore } from '../store/viewport.js';
import { takeOverStore } from '../takeover/personActivity.js';
import {
  catchingOverlayAt,
  ClickCatcher,
  displayPointToDesktop,
  interactiveCoverExceeds,
  interactiveOf,
  interactiveOverlayAt,
  type MouseStateLike,
} from './interactive.js';

function overlay(id: string, clickThrough: boolean, x = 100, y = 100, size = 50): Overlay {
  return {
    overlay_id: id,
    bounds: { x, y, width: size, height: size },
    color: 'red',
    opacity: 0.5,
    click_through: clickThrough,
    monitor_index: 0,
    created_at: 0,
  };
}

const overlays = [
  overlay('catcher', false),
  overlay('glass', true, 90, 90, 100), // click-through, on top: never catches
  overlay('small-catcher', false, 120, 120, 5),
];

describe('interactiveOverlayAt', () => {
  it('finds the topmost interactive overlay at a pixel, ignoring click-through ones', () => {
    expect(interactiveOf(overlays).map((o) => o.overlay_id)).toEqual(['catcher', 'small-catcher']);
    expect(interactiveOf(overlays)).toBe(interactiveOf(overlays)); // made once per array
    expect(interactiveOverlayAt({ x: 100, y: 100 }, overlays)?.overlay_id).toBe('catcher');
    expect(interactiveOverlayAt({ x: 149, y: 149 }, overlays)?.overlay_id).toBe('catcher');
    expect(interactiveOverlayAt({ x: 150, y: 149 }, overlays)).toBeUndefined();
    expect(interactiveOverlayAt({ x: 122, y: 122 }, overlays)?.overlay_id).toBe('small-catcher');
    expect(interactiveOverlayAt({ x: 95, y: 95 }, overlays)).toBeUndefined();
  });

  it('maps display-element points to the desktop pixel the desktop would get', () => {
    expect(displayPointToDesktop(99.9, 50, 0.5)).toEqual({ x: 199, y: 100 });
    expect(displayPointToDesktop(10, 10, 0)).toEqual({ x: 10, y: 10 });
  });
});

function state(x: number, y: number, buttons: Partial<MouseStateLike> = {}): MouseStateLike {
  return { x, y, left: false, middle: false, right: false, up: false, down: false, ...buttons };
}

describe('ClickCatcher', () => {
  const at = (p: { x: number; y: number }) => interactiveOverlayAt(p, overlays);
  const run = (catcher: ClickCatcher, s: MouseStateLike) => catcher.filter(s, s);

  it('holds back a press on an interactive overlay and its release, passing moves', () => {
    const c = new ClickCatcher(at);
    expect(run(c, state(110, 110))).toEqual(state(110, 110));
    expect(run(c, state(110, 110, { left: true }))).toBeNull(); // press: nothing new to send
    expect(run(c, state(300, 300, { left: true }))).toEqual(state(300, 300)); // a move, no drag
    expect(run(c, state(300, 300))).toBeNull(); // the release
    // The next press, off the overlay, goes through.
    expect(run(c, state(300, 300, { left: true }))).toEqual(state(300, 300, { left: true }));
  });

  it('lets click-through overlays, the wheel and other buttons pass', () => {
    const c = new ClickCatcher(at);
    expect(run(c, state(95, 95, { left: true }))).toEqual(state(95, 95, { left: true }));
    expect(run(c, state(95, 95))).toEqual(state(95, 95));
    expect(run(c, state(110, 110, { up: true }))).toEqual(state(110, 110, { up: true }));
  });

  it('releases on the overlay a button the desktop already holds', () => {
    const c = new ClickCatcher(at);
    expect(run(c, state(300, 300, { right: true }))).toEqual(state(300, 300, { right: true }));
    expect(run(c, state(110, 110, { right: true }))).toEqual(state(110, 110, { right: true }));
    // A second button pressed over the overlay while the first is held is caught alone.
    expect(run(c, state(110, 110, { right: true, left: true }))).toBeNull();
    expect(run(c, state(110, 110, { right: true }))).toBeNull();
    expect(run(c, state(110, 110))).toEqual(state(110, 110));
  });
});

describe('catchingOverlayAt', () => {
  it('catches on an interactive overlay, and never while the person has taken over', () => {
    const box = overlay('box', false, 0, 0, 400);
    overlayStore.getState().replaced({ overlays: [box], seq: 1 });
    try {
      expect(catchingOverlayAt({ x: 10, y: 10 })?.overlay_id).toBe('box');
      const catcher = new ClickCatcher();
      const press = {
        x: 10,
        y: 10,
        left: true,
        middle: false,
        right: false,
        up: false,
        down: false,
      };
      expect(catcher.filter(press, { x: 10, y: 10 })?.left).toBe(false);
      catcher.filter({ ...press, left: false }, { x: 10, y: 10 });
      takeOverStore.getState().takenOverChanged(true);
      expect(catchingOverlayAt({ x: 10, y: 10 })).toBeUndefined();
      // The same press now reaches the desktop.
      expect(catcher.filter(press, { x: 10, y: 10 })?.left).toBe(true);
    } finally {
      takeOverStore.getState().takenOverChanged(false);
      overlayStore.getState().replaced({ overlays: [], seq: 2 });
    }
  });
});

describe('the cover limit', () => {
  const visible = { x: 0, y: 0, width: 1280, height: 800 };

  it('lets no interactive overlay catch once they cover most of the visible desktop', () => {
    viewportStore.getState().viewportChanged(
      { vx: 0, vy: 0, vw: 1280, vh: 800, scale: 1 },
      {
        x: 0,
        y: 0,
      },
    );
    try {
      const small = overlay('small', false, 0, 0, 400);
      overlayStore.getState().replaced({ overlays: [small], seq: 1 });
      expect(catchingOverlayAt({ x: 10, y: 10 })?.overlay_id).toBe('small');
      const whole = overlay('whole-desktop', false, 0, 0, 4000);
      overlayStore.getState().replaced({ overlays: [small, whole], seq: 2 });
      expect(catchingOverlayAt({ x: 10, y: 10 })).toBeUndefined();
      expect(catchingOverlayAt({ x: 1000, y: 700 })).toBeUndefined();
    } finally {
      overlayStore.getState().replaced({ overlays: [], seq: 3 });
      viewportStore.getState().viewportChanged(
        { vx: 0, vy: 0, vw: 0, vh: 0, scale: 1 },
        {
          x: 0,
          y: 0,
        },
      );
    }
  });

  it('counts interactive tiles together, click-through ones not at all', () => {
    const tiles: Overlay[] = [];
    for (let x = 0; x < 1280; x += 160) tiles.push(overlay(`t${x}`, false, x, 0, 160));
    for (let x = 0; x < 1280; x += 160) tiles.push(overlay(`u${x}`, false, x, 160, 160));
    for (let x = 0; x < 1280; x += 160) tiles.push(overlay(`v${x}`, false, x, 320, 160));
    expect(interactiveCoverExceeds(tiles, visible)).toBe(true);
    expect(interactiveCoverExceeds(tiles.slice(0, 16), visible)).toBe(false);
    const glass = tiles.map((o) => ({ ...o, click_through: true }));
    expect(interactiveCoverExceeds(glass, visible)).toBe(false);
    // What this window shows is what counts: the same tiles over a 640×480 crop cover it all.
    expect(
      interactiveCoverExceeds(tiles.slice(0, 16), { x: 0, y: 0, width: 640, height: 320 }),
    ).toBe(true);
  });
});
