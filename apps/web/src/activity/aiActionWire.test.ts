// What a window tells the others about an AI action it ran: exactly the drawable fields, parsed
// by the protocol's own schema, text cut to the limit without splitting a character, and nothing
// for the clipboard.
import { AiAction, MAX_AI_ACTION_TEXT } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { toAiAction } from './aiActionWire.js';

describe('toAiAction', () => {
  it('keeps the drawable kinds as the protocol takes them', () => {
    const drag = toAiAction({
      kind: 'drag',
      from: { x: 1, y: 2 },
      to: { x: 3, y: 4 },
      button: 'left',
    });
    expect(drag).toEqual({
      kind: 'drag',
      from: { x: 1, y: 2 },
      to: { x: 3, y: 4 },
      button: 'left',
    });
    for (const action of [
      drag,
      toAiAction({ kind: 'click', x: 5, y: 6, button: 'right', clicks: 2 }),
      toAiAction({ kind: 'scroll', x: 5, y: 6, direction: 'up', amount: 3 }),
      toAiAction({ kind: 'move', x: 5, y: 6 }),
      toAiAction({ kind: 'keys', keys: 'ctrl+s', repeat: 1 }),
    ]) {
      expect(AiAction.parse(action)).toEqual(action);
    }
  });

  it('cuts long text without splitting a character, and sends nothing for the clipboard', () => {
    const text = `${'a'.repeat(MAX_AI_ACTION_TEXT - 1)}😀 and more`;
    const typed = toAiAction({ kind: 'type', text });
    expect(typed).toEqual({ kind: 'type', text: 'a'.repeat(MAX_AI_ACTION_TEXT - 1) });
    expect(AiAction.safeParse(typed).success).toBe(true);
    expect(
      toAiAction({ kind: 'text', title: 'Replace the clipboard', fact: 'Put:', text: 'secret' }),
    ).toBeUndefined();
    expect(toAiAction({ kind: 'none', title: 'Read the clipboard', facts: [] })).toBeUndefined();
  });
});
