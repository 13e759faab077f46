import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CopyOp } from '../encode/instructions.js';
import type { Rect } from '../encode/rect.js';
import { FrameState, mergeCopies } from './frameState.js';

const W = 40;
const H = 30;

/** Moves a block like canvas drawImage from the same canvas (and RFB CopyRect): a snapshot. */
function applyCopy(px: Uint32Array, op: CopyOp): void {
  const block: number[] = [];
  for (let y = 0; y < op.height; y++)
    for (let x = 0; x < op.width; x++) block.push(px[(op.srcY + y) * W + op.srcX + x]!);
  for (let y = 0; y < op.height; y++)
    for (let x = 0; x < op.width; x++) px[(op.y + y) * W + op.x + x] = block[y * op.width + x]!;
}

function redraw(browser: Uint32Array, server: Uint32Array, rect: Rect): void {
  for (let y = rect.y; y < rect.y + rect.height; y++)
    for (let x = rect.x; x < rect.x + rect.width; x++) browser[y * W + x] = server[y * W + x]!;
}

const inside = (r: Rect, x: number, y: number) =>
  x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height;

const rectArb = fc
  .record({
    x: fc.integer({ min: 0, max: W - 1 }),
    y: fc.integer({ min: 0, max: H - 1 }),
    width: fc.integer({ min: 1, max: W }),
    height: fc.integer({ min: 1, max: H }),
  })
  .map((r) => ({ ...r, width: Math.min(r.width, W - r.x), height: Math.min(r.height, H - r.y) }));

const copyArb = fc
  .record({
    width: fc.integer({ min: 1, max: W }),
    height: fc.integer({ min: 1, max: H }),
    a: fc.nat(),
    b: fc.nat(),
    c: fc.nat(),
    d: fc.nat(),
  })
  .map(({ width, height, a, b, c, d }) => ({
    width,
    height,
    srcX: a % (W - width + 1),
    srcY: b % (H - height + 1),
    x: c % (W - width + 1),
    y: d % (H - height + 1),
  }));

const opArb = fc.oneof(
  rectArb.map((rect) => ({ kind: 'rect' as const, rect })),
  copyArb.map((op) => ({ kind: 'copy' as const, op })),
  // A scroll of the whole screen by a few rows: what terminals do all the time.
  fc.integer({ min: 1, max: 5 }).map((k) => ({
    kind: 'copy' as const,
    op: { srcX: 0, srcY: k, x: 0, y: 0, width: W, height: H - k },
  })),
  rectArb.map((rect) => ({ kind: 'lossless' as const, rect })),
  fc.constant({ kind: 'take' as const }),
);

describe('FrameState', () => {
  it('keeps the browser exact: copies in order, then dirty rectangles from the framebuffer (property)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const server = new Uint32Array(W * H).map((_, i) => i);
        const browser = server.slice();
        const state = new FrameState(W, H);
        let next = W * H;
        const take = () => {
          const frame = state.take();
          for (const op of frame.copies) applyCopy(browser, op);
          for (const rect of frame.rects) redraw(browser, server, rect);
          // What must be drawn losslessly is drawn at all.
          for (const rect of frame.lossless)
            for (let y = rect.y; y < rect.y + rect.height; y++)
              for (let x = rect.x; x < rect.x + rect.width; x++)
                expect(frame.rects.some((r) => inside(r, x, y))).toBe(true);
          expect(browser).toEqual(server);
        };
        for (const op of ops) {
          if (op.kind === 'rect') {
            redraw(server, new Uint32Array(W * H).fill(next++), op.rect);
            state.markDirty(op.rect);
          } else if (op.kind === 'copy') {
            applyCopy(server, op.op);
            state.addCopy(op.op);
          } else if (op.kind === 'lossless') {
            state.markLossless(op.rect);
          } else {
            take();
          }
        }
        take();
      }),
      { numRuns: 400 },
    );
  });

  it('keeps a scroll a copy while the browser lags, moving the new lines with it', () => {
    const s = new FrameState(200, 100);
    for (let i = 0; i < 5; i++) {
      // Scroll up by 10 rows, then draw the new bottom line.
      s.addCopy({ srcX: 0, srcY: 10, x: 0, y: 0, width: 200, height: 90 });
      s.markDirty({ x: 0, y: 90, width: 200, height: 10 });
    }
    const frame = s.take();
    expect(frame.copies).toHaveLength(5);
    // Only the five new lines are drawn, not the screen.
    expect(frame.rects).toEqual([{ x: 0, y: 50, width: 200, height: 50 }]);
  });

  it('merges the bands a server sends one scroll as', () => {
    const s = new FrameState(200, 100);
    s.addCopy({ srcX: 0, srcY: 10, x: 0, y: 0, width: 200, height: 30 });
    s.addCopy({ srcX: 0, srcY: 40, x: 0, y: 30, width: 200, height: 30 });
    s.addCopy({ srcX: 0, srcY: 70, x: 0, y: 60, width: 200, height: 30 });
    expect(s.take().copies).toEqual([{ srcX: 0, srcY: 10, x: 0, y: 0, width: 200, height: 90 }]);
    // Bottom first would read rows the first band already overwrote: not the same move.
    expect(
      mergeCopies(
        { srcX: 0, srcY: 40, x: 0, y: 30, width: 200, height: 30 },
        { srcX: 0, srcY: 10, x: 0, y: 0, width: 200, height: 30 },
      ),
    ).toBeUndefined();
  });

  it('drops a copy whose destination will be redrawn anyway', () => {
    const s = new FrameState(200, 100);
    s.markDirty({ x: 0, y: 0, width: 200, height: 100 });
    s.addCopy({ srcX: 0, srcY: 0, x: 100, y: 50, width: 50, height: 50 });
    const frame = s.take();
    expect(frame.copies).toEqual([]);
    expect(frame.rects).toEqual([{ x: 0, y: 0, width: 200, height: 100 }]);
  });

  it('demotes copies past the cap instead of queueing without bound', () => {
    const s = new FrameState(2000, 100);
    for (let i = 0; i < 80; i++)
      s.addCopy({ srcX: 0, srcY: 0, x: i * 20 + 100, y: 50, width: 1, height: 1 });
    const frame = s.take();
    expect(frame.copies).toHaveLength(64);
    expect(frame.rects.length).toBeGreaterThan(0);
  });

  it('a resize voids queued copies and redraws the whole new screen', () => {
    const s = new FrameState(200, 100);
    s.addCopy({ srcX: 0, srcY: 0, x: 100, y: 0, width: 50, height: 50 });
    s.resize(300, 150);
    const frame = s.take();
    expect(frame.size).toEqual({ width: 300, height: 150 });
    expect(frame.copies).toEqual([]);
    expect(frame.rects).toEqual([{ x: 0, y: 0, width: 300, height: 150 }]);
  });

  it('keeps a browser that falls out of a shared stream and rejoins it exact (property)', () => {
    // The shared stream's bookkeeping (sharedFrames.ts) on FrameStates: A always takes the
    // stream's frames; B falls behind at some (getting the frame as pending changes), takes its
    // own frames meanwhile, and rejoins when it took its last frame at the update the stream
    // took its last at — its pending copies are then the stream's and are not added again.
    const step = fc.oneof(
      opArb.filter((op) => op.kind === 'rect' || op.kind === 'copy'),
      fc.boolean().map((bReady) => ({ kind: 'stream' as const, bReady })),
      fc.constant({ kind: 'own' as const }),
      fc.constant({ kind: 'join' as const }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const server = new Uint32Array(W * H).map((_, i) => i);
        const a = server.slice();
        const b = server.slice();
        const show = (px: Uint32Array, frame: ReturnType<FrameState['take']>) => {
          for (const op of frame.copies) applyCopy(px, op);
          for (const rect of frame.rects) redraw(px, server, rect);
        };
        const stream = new FrameState(W, H);
        const own = new FrameState(W, H);
        let updates = 0;
        let streamTakenAt = 0;
        let bTakenAt: number | undefined = 0;
        let bInStep = true;
        let next = W * H;
        for (const op of steps) {
          if (op.kind === 'rect') {
            redraw(server, new Uint32Array(W * H).fill(next++), op.rect);
            stream.markDirty(op.rect);
            if (!bInStep) own.markDirty(op.rect);
            updates++;
          } else if (op.kind === 'copy') {
            applyCopy(server, op.op);
            stream.addCopy(op.op);
            if (!bInStep) own.addCopy(op.op);
            updates++;
          } else if (op.kind === 'stream') {
            const frame = stream.take();
            streamTakenAt = updates;
            show(a, frame);
            if (bInStep && op.bReady) show(b, frame);
            else if (bInStep) {
              bInStep = false;
              bTakenAt = undefined;
              own.apply(frame);
            }
          } else if (op.kind === 'own' && !bInStep) {
            show(b, own.take());
            bTakenAt = updates;
          } else if (op.kind === 'join' && !bInStep && bTakenAt === streamTakenAt) {
            const pending = own.take();
            for (const rect of pending.rects) stream.markDirty(rect);
            for (const rect of pending.lossless) stream.markLossless(rect);
            bInStep = true;
          }
        }
        const last = stream.take();
        show(a, last);
        if (bInStep) show(b, last);
        else show(b, own.take());
        expect(a).toEqual(server);
        expect(b).toEqual(server);
      }),
      { numRuns: 400 },
    );
  });
});
