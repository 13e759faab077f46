// The viewer handles exactly the tools whose definitions run in the viewer: one handler each,
// none for bridge tools. (The mapped type makes a missing handler a compile error; this checks
// the same at run time, so a cast somewhere cannot hide it.)
import { BRIDGE_TOOL_NAMES, VIEWER_TOOL_NAMES } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { viewerHandlers } from './dispatch.js';

describe('viewer dispatch', () => {
  it('has a handler for every viewer tool and none for bridge tools', () => {
    expect(Object.keys(viewerHandlers).sort()).toEqual([...VIEWER_TOOL_NAMES].sort());
    for (const name of BRIDGE_TOOL_NAMES) expect(Object.hasOwn(viewerHandlers, name)).toBe(false);
    for (const handler of Object.values(viewerHandlers)) expect(handler).toBeTypeOf('function');
  });
});
