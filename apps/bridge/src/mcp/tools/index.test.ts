// The bridge implements exactly the protocol's tools, and every schema converts to JSON Schema.
import { TOOL_NAMES } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { buildToolList } from '../toolList.js';
import { bridgeTools } from './index.js';

describe('bridge tools', () => {
  it('cover every protocol tool exactly once, in registry order', () => {
    expect(bridgeTools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
  });

  it('all produce JSON Schemas with an object root and the error envelope in outputSchema', () => {
    for (const entry of buildToolList(bridgeTools)) {
      expect(entry.inputSchema.type).toBe('object');
      expect(JSON.stringify(entry.outputSchema)).toContain('"retry_after_ms"');
      expect(entry.inputSchema).not.toHaveProperty('$schema');
    }
  });
});
