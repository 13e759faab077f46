// A browser's words to the bridge never reach the desktop server as our extensions of the
// protocol: those are the bridge's own (the recorder's `x-oc-passive` among them).
import { ATTENTION_OPCODE, DELIVERY_OPCODE, PASSIVE_OPCODE } from '@overlay-companion/guac';
import { describe, expect, it } from 'vitest';
import { BrowserInput } from './browserInput.js';

describe('BrowserInput', () => {
  it('drops our extensions from a browser and passes its input on', () => {
    const input = new BrowserInput('vnc');
    for (const opcode of [PASSIVE_OPCODE, ATTENTION_OPCODE, DELIVERY_OPCODE]) {
      expect(input.toUpstream({ opcode, args: [] })).toBe('');
    }
    expect(input.toUpstream({ opcode: 'mouse', args: ['1', '2', '0'] })).toBe(
      '5.mouse,1.1,1.2,1.0;',
    );
  });
});
