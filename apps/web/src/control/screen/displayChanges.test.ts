// Which display calls count as picture changes, on a FAKE display (an object with the method
// names guacamole-common-js 1.5 gives Guacamole.Display; the real one needs a DOM and is
// exercised by e2e/screenshotReuse.spec.ts): drawing calls and unknown methods count, getters,
// the zoom, buffers and the local cursor do not, event slots are left alone, and restoring puts
// back only what is still ours.
import type Guacamole from 'guacamole-common-js';
import { describe, expect, it } from 'vitest';
import { watchDisplayChanges } from './displayChanges.js';

function fakeDisplay() {
  const calls: string[] = [];
  const method =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push(`${name}(${args.join(',')})`);
      return name;
    };
  const display: Record<string, unknown> = { calls };
  for (const name of [
    'getWidth',
    'getScale',
    'scale',
    'flatten',
    'createBuffer',
    'moveCursor',
    'draw',
    'copy',
    'resize',
    'createLayer',
    'someFutureMethod',
  ])
    display[name] = method(name);
  display.onresize = method('onresize');
  return display;
}

describe('watchDisplayChanges', () => {
  it('hears drawing and unknown calls, not reads, zoom, buffers or the cursor', () => {
    const display = fakeDisplay();
    let changes = 0;
    const restore = watchDisplayChanges(display as unknown as Guacamole.Display, () => {
      changes += 1;
    });
    const call = (name: string, ...args: unknown[]) =>
      (display[name] as (...a: unknown[]) => unknown)(...args);
    for (const name of ['getWidth', 'getScale', 'scale', 'flatten', 'createBuffer', 'moveCursor'])
      call(name);
    call('onresize', 1, 2);
    expect(changes).toBe(0);
    // The original still runs, with its arguments and its return value.
    expect(call('draw', 1, 2)).toBe('draw');
    call('copy');
    call('resize');
    call('createLayer');
    call('someFutureMethod');
    expect(changes).toBe(5);
    expect(display.calls).toContain('draw(1,2)');

    // A slot the page replaced meanwhile keeps the page's function.
    const mine = () => 'page';
    display.copy = mine;
    restore();
    call('draw');
    expect(changes).toBe(5);
    expect(display.copy).toBe(mine);
  });
});
