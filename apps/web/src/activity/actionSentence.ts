// The action log in words: what the AI did, as a sentence made from the audit entry's argument
// summary ("Click (left) at 120, 340 on monitor 1", "Type “hello”"), and how it was decided
// ("Asked you · approved by Ada", "Allowed by a standing permission"). What the AI typed is
// shown when the person keeps typed text in the audit log (Settings); otherwise its length. A
// summary that is not the JSON the bridge writes (cut at its length limit, or an unknown tool)
// is shown as it is.
import type { AuditEntryView } from '@overlay-companion/protocol';

type Args = Record<string, unknown>;

const num = (v: unknown): string => (typeof v === 'number' ? String(v) : '?');
const at = (a: Args): string =>
  `${num(a.x)}, ${num(a.y)}${typeof a.monitor_index === 'number' ? ` on monitor ${a.monitor_index}` : ''}`;
const point = (p: unknown): string => (typeof p === 'object' && p !== null ? at(p as Args) : '?');

/** “the text” when kept; "5 characters (not kept)" when the audit redacted it. */
function typedText(value: unknown): string {
  if (typeof value !== 'string') return 'text';
  const redacted = /^\[redacted: (\d+) characters\]$/.exec(value);
  if (redacted !== null) return `${redacted[1]} characters (not kept)`;
  return `“${value}”`;
}

const SENTENCES: Readonly<Record<string, (a: Args) => string>> = {
  click_at: (a) => {
    const clicks = a.clicks === 2 ? 'Double-click' : a.clicks === 3 ? 'Triple-click' : 'Click';
    return `${clicks} (${typeof a.button === 'string' ? a.button : 'left'}) at ${at(a)}`;
  },
  mouse_move: (a) => `Move the pointer to ${at(a)}`,
  drag: (a) => `Drag from ${point(a.from)} to ${point(a.to)}`,
  scroll: (a) =>
    `Scroll ${typeof a.direction === 'string' ? a.direction : ''} ${num(a.amount ?? 3)} steps at ${at(a)}`,
  type_text: (a) => `Type ${typedText(a.text)}`,
  press_key: (a) =>
    `Press ${typeof a.keys === 'string' ? a.keys : 'a key'}${typeof a.repeat === 'number' && a.repeat > 1 ? ` ${a.repeat} times` : ''}`,
  set_clipboard: (a) => `Put ${typedText(a.text)} on the clipboard`,
  get_clipboard: () => 'Read the clipboard',
  take_screenshot: () => 'Take a screenshot',
  set_mode: (a) => `Ask for ${typeof a.mode === 'string' ? a.mode : 'another'} mode`,
};

/** The entry's action as a sentence; the raw summary when it cannot be read as arguments. */
export function actionSentence(tool: string | null, summary: string | null): string {
  if (tool === null) return summary ?? '';
  const sentence = Object.hasOwn(SENTENCES, tool) ? SENTENCES[tool] : undefined;
  let args: unknown;
  try {
    args = JSON.parse(summary ?? '{}');
  } catch {
    return `${tool} ${summary ?? ''}`.trim();
  }
  if (sentence === undefined || typeof args !== 'object' || args === null)
    return `${tool} ${summary ?? ''}`.trim();
  return sentence(args as Args);
}

/** How the audit outcome of an asked call reads (the bridge's ASK_OUTCOMES and error kinds). */
const ASKED: Readonly<Record<string, string>> = {
  denied_by_person: 'denied by the person',
  no_answer: 'no answer in time, so denied',
  withdrawn: 'withdrawn before an answer',
  stopped: 'ended by Stop',
  cancelled: 'cancelled',
  timeout: 'timed out',
};

/** How a tool call was decided, in words: by the mode, a standing permission, the person, or refused. */
export function decisionSentence(
  entry: Pick<AuditEntryView, 'kind' | 'decision' | 'approved_by' | 'outcome'>,
): string {
  if (entry.decision === null) return '—';
  if (entry.kind !== 'tool_call') return entry.decision === 'deny' ? 'Denied' : 'Allowed';
  switch (entry.decision) {
    case 'allow':
      return 'Allowed by the mode';
    case 'standing':
      return 'Allowed by a standing permission';
    case 'deny':
      return 'Refused by the policy';
    case 'confirm': {
      if (entry.outcome === 'ok' || entry.approved_by !== null)
        return `Asked · approved by ${entry.approved_by ?? 'the person'}`;
      const how = entry.outcome === null ? undefined : ASKED[entry.outcome];
      return how === undefined ? 'Asked the person' : `Asked · ${how}`;
    }
  }
}
