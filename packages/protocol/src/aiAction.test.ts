// ai_action carries only what a window needs to draw the AI's hand: desktop points in range,
// text cut to the bubble's size, and no kind without a place on the desktop (the clipboard).
import { describe, expect, it } from 'vitest';
import { AiAction, MAX_AI_ACTION_TEXT } from './aiAction.js';
import { parseViewerMessage } from './messages.js';

describe('ai_action', () => {
  it('takes each drawable action in desktop pixels', () => {
    for (const action of [
      { kind: 'click', x: 0, y: 32767, button: 'right', clicks: 1 },
      { kind: 'scroll', x: 5, y: 6, direction: 'down', amount: 3 },
      { kind: 'move', x: 7, y: 8 },
      { kind: 'keys', keys: 'ctrl+c', repeat: 2 },
      { kind: 'type', text: 'x'.repeat(MAX_AI_ACTION_TEXT) },
    ]) {
      expect(AiAction.safeParse(action).success).toBe(true);
    }
  });

  it('refuses points off any desktop, long text, extra fields and the clipboard', () => {
    for (const action of [
      { kind: 'click', x: -1, y: 0, button: 'left', clicks: 1 },
      { kind: 'move', x: 1.5, y: 0 },
      { kind: 'type', text: 'x'.repeat(MAX_AI_ACTION_TEXT + 1) },
      { kind: 'move', x: 1, y: 1, tool: 'mouse_move' },
      { kind: 'clipboard_write', text: 'secret' },
    ]) {
      expect(AiAction.safeParse(action).success).toBe(false);
    }
    const parsed = parseViewerMessage(
      JSON.stringify({ type: 'ai_action', action: { kind: 'move' } }),
    );
    expect(parsed.ok).toBe(false);
  });
});
