// The AI actions a window draws, on the wire to the person's other windows (ai_action): the
// drawn kinds of a tool's preview (ConfirmDetails) as the protocol's AiAction, typed text and key
// combos cut to what the pointer's bubble can show. Anything without a place on the desktop (the
// kinds `text` and `none` — the clipboard — a mode change, a tool without a preview) is not sent.
import { MAX_AI_ACTION_TEXT, type AiAction } from '@overlay-companion/protocol';
import { byKind, type ByKind, type ConfirmDetails } from '../store/pendingConfirmations.js';

/** At most MAX_AI_ACTION_TEXT UTF-16 units, never ending in half a surrogate pair. */
function cut(text: string): string {
  if (text.length <= MAX_AI_ACTION_TEXT) return text;
  return text.slice(0, MAX_AI_ACTION_TEXT).replace(/[\uD800-\uDBFF]$/, '');
}

const NOT_SENT = () => undefined;

const WIRE: ByKind<AiAction | undefined> = {
  click: (d) => ({ kind: 'click', x: d.x, y: d.y, button: d.button, clicks: d.clicks }),
  drag: (d) => ({
    kind: 'drag',
    from: { x: d.from.x, y: d.from.y },
    to: { x: d.to.x, y: d.to.y },
    button: d.button,
  }),
  scroll: (d) => ({ kind: 'scroll', x: d.x, y: d.y, direction: d.direction, amount: d.amount }),
  move: (d) => ({ kind: 'move', x: d.x, y: d.y }),
  type: (d) => ({ kind: 'type', text: cut(d.text) }),
  keys: (d) => ({ kind: 'keys', keys: cut(d.keys), repeat: d.repeat }),
  text: NOT_SENT,
  none: NOT_SENT,
  mode: NOT_SENT,
  other: NOT_SENT,
};

export function toAiAction(details: ConfirmDetails): AiAction | undefined {
  return byKind(WIRE, details);
}
