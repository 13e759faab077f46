// The AI actions a window draws, on the wire to the person's other windows (ai_action): the
// drawable kinds of ConfirmDetails as the protocol's AiAction, typed text and key combos cut to
// what the pointer's bubble can show. Anything without a place on the desktop (the clipboard, a
// mode change) is not sent.
import { MAX_AI_ACTION_TEXT, type AiAction } from '@overlay-companion/protocol';
import type { ConfirmDetails } from '../store/pendingConfirmations.js';

/** At most MAX_AI_ACTION_TEXT UTF-16 units, never ending in half a surrogate pair. */
function cut(text: string): string {
  if (text.length <= MAX_AI_ACTION_TEXT) return text;
  return text.slice(0, MAX_AI_ACTION_TEXT).replace(/[\uD800-\uDBFF]$/, '');
}

export function toAiAction(d: ConfirmDetails): AiAction | undefined {
  switch (d.kind) {
    case 'click':
      return { kind: 'click', x: d.x, y: d.y, button: d.button, clicks: d.clicks };
    case 'drag':
      return {
        kind: 'drag',
        from: { x: d.from.x, y: d.from.y },
        to: { x: d.to.x, y: d.to.y },
        button: d.button,
      };
    case 'scroll':
      return { kind: 'scroll', x: d.x, y: d.y, direction: d.direction, amount: d.amount };
    case 'move':
      return { kind: 'move', x: d.x, y: d.y };
    case 'type':
      return { kind: 'type', text: cut(d.text) };
    case 'keys':
      return { kind: 'keys', keys: cut(d.keys), repeat: d.repeat };
    default:
      return undefined;
  }
}
