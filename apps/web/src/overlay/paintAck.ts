// Which overlay state the layer has shown, for tests and the bench (control/testApi.ts): how the
// boxes are painted ('worker': on an OffscreenCanvas in the painting worker; 'main': on the main
// thread where the browser cannot hand a canvas to a worker), the last state handed to the
// painting in an animation frame ('posted') and the last one acknowledged as painted
// ('painted': the worker's answer, or the main thread's own paint at once), and the label tags
// last handed to the painting with the frame that handed them ('labels': painted once that frame
// is). Frames are the layer's animation frames, counted from 1; 0 is none yet.
import { createStore } from 'zustand/vanilla';
import type { ShownLabel } from './labelTags.js';

export type PaintPath = 'worker' | 'main';

export interface PaintMark {
  seq: number;
  frame: number;
}

export interface PaintAckState {
  path: PaintPath | null;
  posted: PaintMark;
  painted: PaintMark;
  labels: { frame: number; shown: readonly ShownLabel[] };
}

const NONE: PaintMark = { seq: -1, frame: 0 };

export const paintAckStore = createStore<PaintAckState>()(() => ({
  path: null,
  posted: NONE,
  painted: NONE,
  labels: { frame: 0, shown: [] },
}));

/** Resolves with the painted mark once the paint of `frame` (or a later one) is acknowledged. */
export function whenPainted(frame: number): Promise<PaintMark> {
  return new Promise((resolve) => {
    const check = (state: PaintAckState) => {
      if (state.painted.frame < frame) return false;
      resolve(state.painted);
      return true;
    };
    if (check(paintAckStore.getState())) return;
    const stop = paintAckStore.subscribe((state) => {
      if (check(state)) stop();
    });
  });
}
