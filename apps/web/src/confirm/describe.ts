// Words for a confirmation: a title and the facts the person needs to decide, exactly what will
// happen, per kind of confirmation (a tool's preview kind: its definition decides which; a mode
// change; any other tool). Pure so the wording is tested and the panel stays a thin view.
import { MAX_INTENT_CHARS } from '@overlay-companion/protocol';
import { byKind, type ByKind, type ConfirmDetails } from '../store/pendingConfirmations.js';

export interface ConfirmText {
  title: string;
  /** Short lines of facts ("At 120, 340 on the desktop"). */
  facts: string[];
  /** Text the AI wants to type or put on the clipboard, shown verbatim in a box. */
  verbatim?: string;
}

const BUTTON: Record<string, string> = { left: 'Left', right: 'Right', middle: 'Middle' };
const TIMES: Record<number, string> = { 1: 'Click', 2: 'Double-click', 3: 'Triple-click' };

/**
 * `text` with its control characters made visible, so a hidden Return or Escape cannot slip
 * past the person: Return shows as ⏎ (and still breaks the line), Tab as ⇥, Escape as ␛, other
 * C0 characters and DEL as their Unicode control pictures.
 */
export function showControlCharacters(text: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point.
  return text.replace(/\r\n|[\u0000-\u001f\u007f]/g, (c) => {
    if (c === '\r\n' || c === '\n' || c === '\r') return '⏎\n';
    if (c === '\t') return '⇥';
    if (c === '\u001b') return '␛';
    if (c === '\u007f') return '␡';
    return String.fromCharCode(0x2400 + c.charCodeAt(0));
  });
}

/**
 * The AI's `intent` as the panel and the action log show it: plain text, at most
 * MAX_INTENT_CHARS characters (a longer one is cut with "…"), any control character visible.
 * The bridge and the viewer already refuse control characters; this is the last line of defence
 * for what the person reads before approving. Undefined when there is nothing to show.
 */
export function intentText(intent: string | undefined): string | undefined {
  const trimmed = intent?.trim();
  if (trimmed === undefined || trimmed === '') return undefined;
  const chars = [...trimmed];
  const bounded =
    chars.length > MAX_INTENT_CHARS ? `${chars.slice(0, MAX_INTENT_CHARS).join('')}…` : trimmed;
  return showControlCharacters(bounded);
}

/** How many times `text` presses Return and Tab, in words ("Return once and Tab 2 times"). */
function pressesIn(text: string): string | undefined {
  const breaks = (text.match(/\r\n|\r|\n/g) ?? []).length;
  const tabs = (text.match(/\t/g) ?? []).length;
  const presses = [
    breaks > 0 ? `Return ${breaks === 1 ? 'once' : `${breaks} times`}` : '',
    tabs > 0 ? `Tab ${tabs === 1 ? 'once' : `${tabs} times`}` : '',
  ].filter((p) => p !== '');
  return presses.length > 0 ? presses.join(' and ') : undefined;
}

/** The words for each kind of confirmation (a tool's preview kind, a mode change, any other). */
const WORDS: ByKind<ConfirmText> = {
  click: (d) => ({
    title: `${TIMES[d.clicks] ?? 'Click'} with the ${(BUTTON[d.button] ?? d.button).toLowerCase()} button`,
    facts: [`At ${d.x}, ${d.y} on the desktop (marked with a crosshair).`],
  }),
  drag: (d) => ({
    title: `Drag with the ${d.button} button`,
    facts: [`From ${d.from.x}, ${d.from.y} to ${d.to.x}, ${d.to.y} (marked with an arrow).`],
  }),
  scroll: (d) => ({
    title: `Scroll ${d.direction}`,
    facts: [`${d.amount} wheel step${d.amount === 1 ? '' : 's'} at ${d.x}, ${d.y} (marked).`],
  }),
  move: (d) => ({
    title: 'Move the pointer',
    facts: [`To ${d.x}, ${d.y} (marked), without clicking.`],
  }),
  type: (d) => {
    const presses = pressesIn(d.text);
    return {
      title: 'Type text',
      facts: [
        `${[...d.text].length} characters into whatever has the keyboard on the desktop:`,
        ...(presses === undefined ? [] : [`This presses ${presses}.`]),
      ],
      verbatim: showControlCharacters(d.text),
    };
  },
  keys: (d) => ({
    title: 'Press keys',
    facts: [d.repeat === 1 ? `Press ${d.keys}` : `Press ${d.keys} ${d.repeat} times`],
    verbatim: d.keys,
  }),
  text: (d) => ({ title: d.title, facts: [d.fact], verbatim: showControlCharacters(d.text) }),
  none: (d) => ({ title: d.title, facts: [...d.facts] }),
  mode: (d) => ({
    title: d.requestedBy === 'person' ? `Confirm: switch to ${d.to}` : 'Change the mode',
    facts: [
      d.requestedBy === 'person'
        ? `You chose ${d.to} (from ${d.from}). Raising the mode takes effect only once you confirm it here.`
        : `The AI asks to go from ${d.from} to ${d.to}.`,
      d.to === 'autopilot'
        ? 'The AI could then click and type without asking you.'
        : d.to === 'custom'
          ? 'The custom list of what runs without asking:'
          : `The AI gets the permissions of ${d.to} mode.`,
    ],
    ...(d.metadata === undefined ? {} : { verbatim: JSON.stringify(d.metadata, null, 2) }),
  }),
  other: (d) => ({ title: `Run ${d.tool}`, facts: ['With these arguments:'], verbatim: d.args }),
};

export function describeConfirmation(details: ConfirmDetails): ConfirmText {
  return byKind(WORDS, details);
}

const NO_POINT = () => undefined;

/** The desktop point each kind is about (where the crosshair is), if it has one. */
const POINT: ByKind<{ x: number; y: number } | undefined> = {
  click: (d) => ({ x: d.x, y: d.y }),
  scroll: (d) => ({ x: d.x, y: d.y }),
  move: (d) => ({ x: d.x, y: d.y }),
  drag: (d) => d.from,
  type: NO_POINT,
  keys: NO_POINT,
  text: NO_POINT,
  none: NO_POINT,
  mode: NO_POINT,
  other: NO_POINT,
};

/** The desktop point a request is about (where the crosshair is), if it has one. */
export function pointOf(details: ConfirmDetails): { x: number; y: number } | undefined {
  return byKind(POINT, details);
}
