// The action log in words: what the AI did, as a sentence made from the audit entry's argument
// summary ("Click (left) at 120, 340 on monitor 1", "Type “hello”"); how it was decided is
// decisionWords.ts, shared with the AI's timeline cards. What the AI typed is
// shown when the person keeps typed text in the audit log (Settings); otherwise its length. A
// summary that is not the JSON the bridge writes (cut at its length limit, or an unknown tool)
// is shown as it is.
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
