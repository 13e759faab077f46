// Hears every call that can change what a Guacamole display's flatten() shows. The client draws
// only through the display's own methods (draw, put, copy, rect, resize, move, shade, dispose…,
// each queued as a task and run when its frame is flushed), so wrapping them is enough to know
// that the picture may have changed. The list is the other way round on purpose: only methods
// known to leave the flattened picture alone are exempt, so a method this code has never heard of
// (a newer guacamole-common-js) counts as a change — a missed change would let take_screenshot
// return an old picture as the current one (lastShot.ts), an extra one only costs an encode.
import type Guacamole from 'guacamole-common-js';

/**
 * Display methods that never change the flattened picture: getters, the CSS zoom, buffers
 * (off-screen, never flattened), the local cursor (its own layer, outside the default layer that
 * flatten draws), and flush, which FrameWatch wraps itself.
 */
const LEAVES_PICTURE_ALONE: ReadonlySet<string> = new Set([
  'getElement',
  'getWidth',
  'getHeight',
  'getDefaultLayer',
  'getCursorLayer',
  'getScale',
  'scale',
  'flatten',
  'flush',
  'createBuffer',
  'setCursor',
  'showCursor',
  'moveCursor',
]);

type AnyFn = (...args: unknown[]) => unknown;

/**
 * Calls `changed` before every display call that may change the picture; returns the function
 * that puts the original methods back. Event handler slots (`on…`) are the page's, left alone.
 */
export function watchDisplayChanges(display: Guacamole.Display, changed: () => void): () => void {
  const holder = display as unknown as Record<string, unknown>;
  const wrapped = new Map<string, { original: AnyFn; wrapper: AnyFn }>();
  for (const name of Object.keys(holder)) {
    const original = holder[name];
    if (typeof original !== 'function' || name.startsWith('on') || LEAVES_PICTURE_ALONE.has(name))
      continue;
    const fn = original as AnyFn;
    const wrapper: AnyFn = (...args) => {
      changed();
      return fn.apply(display, args);
    };
    holder[name] = wrapper;
    wrapped.set(name, { original: fn, wrapper });
  }
  return () => {
    for (const [name, { original, wrapper }] of wrapped)
      if (holder[name] === wrapper) holder[name] = original;
  };
}
