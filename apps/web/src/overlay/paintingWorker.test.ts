// The painting worker's protocol, both ways, without a browser: every message the worker gets is
// parsed (junk, a frame before the canvas, a box with a color that is not a CSS color answer
// 'failed' and paint nothing), edits leave the boxes the page has, a burst of frames is painted
// once and acknowledged with the latest, and every answer parses as FromWorker — the page's
// schema. The pixels are checked in Chromium (overlayWorker.browser.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaintBox } from './boxCanvas.js';
import { MAX_LABEL_TAGS } from './overlayFrame.js';
import { FromWorker, ToWorker, type FrameMessage } from './overlayWorkerProtocol.js';
import { PaintingWorker, applyBoxChange } from './paintingWorker.js';

/** Node has no OffscreenCanvas: a stand-in with a size and no 2D context (so nothing drawn). */
class FakeOffscreenCanvas {
  width = 0;
  height = 0;
  getContext(): null {
    return null;
  }
}
const hadOffscreen = 'OffscreenCanvas' in globalThis;
beforeAll(() => {
  if (!hadOffscreen) Object.assign(globalThis, { OffscreenCanvas: FakeOffscreenCanvas });
});
afterAll(() => {
  if (!hadOffscreen) delete (globalThis as { OffscreenCanvas?: unknown }).OffscreenCanvas;
});

const box = (id: string, x = 10, y = 10): PaintBox => ({
  overlay_id: id,
  bounds: { x, y, width: 20, height: 10 },
  color: 'red',
  opacity: 0.5,
});

const view = { vx: 0, vy: 0, vw: 640, vh: 480, scale: 1 };

function frame(n: number, seq: number, change: FrameMessage['change']): FrameMessage {
  return {
    type: 'frame',
    frame: n,
    seq,
    view,
    ratio: 1,
    width: 640,
    height: 480,
    change,
    labels: null,
  };
}

/** A worker whose answers are parsed as the page parses them, and whose paints run on demand. */
function harness() {
  const answers: FromWorker[] = [];
  const queued: Array<() => void> = [];
  const worker = new PaintingWorker(
    (message) => answers.push(FromWorker.parse(message)),
    (paint) => queued.push(paint),
  );
  const canvas = new FakeOffscreenCanvas();
  const flush = () => queued.splice(0).forEach((paint) => paint());
  return { worker, answers, canvas, flush };
}

describe('PaintingWorker', () => {
  it('paints after init and acknowledges each frame with its frame, seq and count', () => {
    const { worker, answers, canvas, flush } = harness();
    worker.receive({ type: 'init', canvas });
    worker.receive(frame(1, 3, { removed: [], added: [box('a'), box('b'), box('c', 900)] }));
    flush();
    expect(canvas.width).toBe(640);
    expect(answers).toEqual([
      { type: 'painted', frame: 1, seq: 3, count: 2, ms: expect.any(Number) as number },
    ]);
    worker.receive(frame(2, 5, { removed: ['a'], added: [box('d', 100), box('e', 2000)] }));
    flush();
    expect(answers[1]).toMatchObject({ type: 'painted', frame: 2, seq: 5, count: 2 });
  });

  it('paints a burst once and acknowledges its latest frame', () => {
    const { worker, answers, canvas, flush } = harness();
    worker.receive({ type: 'init', canvas });
    worker.receive(frame(1, 1, { removed: [], added: [box('a')] }));
    worker.receive(frame(2, 2, { removed: [], added: [box('b')] }));
    worker.receive(frame(3, 3, { removed: ['a'], added: [box('c')] }));
    flush();
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ type: 'painted', frame: 3, seq: 3, count: 2 });
  });

  it('answers failed to junk, to a frame before the canvas, to a box that is not CSS and to too many tags', () => {
    const { worker, answers, canvas, flush } = harness();
    worker.receive(frame(1, 1, { removed: [], added: [box('a')] }));
    worker.receive({ type: 'init', canvas: { width: 1, height: 1 } }); // not an OffscreenCanvas
    worker.receive({ type: 'init', canvas });
    const hostile = { ...box('x'), color: 'url(https://evil.example/)' };
    worker.receive(frame(2, 2, { removed: [], added: [hostile] }));
    worker.receive({ ...frame(3, 3, { removed: [], added: [] }), width: 1e9 });
    worker.receive({ ...frame(4, 4, { removed: [], added: [] }), extra: 1 });
    const tag = { overlay_id: 't', text: 'hi', x: 0, y: 0, width: 40, height: 20, fontSize: 13 };
    const tooMany = Array.from({ length: MAX_LABEL_TAGS + 1 }, () => tag);
    worker.receive({ ...frame(5, 5, { removed: [], added: [] }), labels: tooMany });
    worker.receive({ type: 'paint-everything' });
    worker.receive('frame');
    flush();
    expect(answers.map((a) => a.type)).toEqual(Array(8).fill('failed'));
    expect(answers[0]).toEqual({ type: 'failed', message: 'A frame came before the canvas.' });
    expect(canvas.width).toBe(0); // nothing was painted
  });

  it('the page rejects answers that are not the protocol', () => {
    for (const junk of [
      { type: 'painted', frame: 0, seq: 1, count: 1, ms: 1 },
      { type: 'painted', frame: 1, seq: -1, count: 1, ms: 1 },
      { type: 'painted', frame: 1, seq: 1, count: 1, ms: 1, extra: true },
      { type: 'failed', message: 'x'.repeat(5_000) },
      { type: 'hello' },
    ]) {
      expect(FromWorker.safeParse(junk).success, JSON.stringify(junk).slice(0, 80)).toBe(false);
    }
    // And the page sends only what the worker reads: a full overlay is more than a box.
    const full = { ...box('a'), label: 'hi', click_through: true, monitor_index: 0, created_at: 0 };
    expect(ToWorker.safeParse(frame(1, 1, { removed: [], added: [full] })).success).toBe(false);
  });
});

describe('applyBoxChange', () => {
  it('drops by id, appends on top, keeps the boxes that stayed', () => {
    const [a, b, c] = [box('a'), box('b'), box('c')];
    const before = [a, b, c];
    const after = applyBoxChange(before, { removed: ['b'], added: [box('d')] });
    expect(after.map((x) => x.overlay_id)).toEqual(['a', 'c', 'd']);
    expect(after[0]).toBe(a);
    expect(after[1]).toBe(c);
    expect(before).toHaveLength(3); // never mutated
    // Drawn again under its id: the old one goes, the new one is on top.
    const again = { ...a, color: 'gold' };
    const redrawn = applyBoxChange(after, { removed: ['a'], added: [again] });
    expect(redrawn).toEqual([c, box('d'), again]);
    expect(applyBoxChange(after, { removed: [], added: [] })).toBe(after);
  });
});
