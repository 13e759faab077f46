// Words for a confirmation: a title and the facts the person needs to decide, exactly what will
// happen. Pure so the wording is tested and the panel stays a thin view.
import { MAX_INTENT_CHARS } from '@overlay-companion/protocol';
import type { ConfirmDetails } from '../store/pendingConfirmations.js';

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

export function describeConfirmation(d: ConfirmDetails): ConfirmText {
  switch (d.kind) {
    case 'click':
      return {
        title: `${TIMES[d.clicks] ?? 'Click'} with the ${(BUTTON[d.button] ?? d.button).toLowerCase()} button`,
        facts: [`At ${d.x}, ${d.y} on the desktop (marked with a crosshair).`],
      };
    case 'drag':
      return {
        title: `Drag with the ${d.button} button`,
        facts: [`From ${d.from.x}, ${d.from.y} to ${d.to.x}, ${d.to.y} (marked with an arrow).`],
      };
    case 'scroll':
      return {
        title: `Scroll ${d.direction}`,
        facts: [`${d.amount} wheel step${d.amount === 1 ? '' : 's'} at ${d.x}, ${d.y} (marked).`],
      };
    case 'move':
      return {
        title: 'Move the pointer',
        facts: [`To ${d.x}, ${d.y} (marked), without clicking.`],
      };
    case 'type': {
      const breaks = (d.text.match(/\r\n|\r|\n/g) ?? []).length;
      const tabs = (d.text.match(/\t/g) ?? []).length;
      const presses = [
        breaks > 0 ? `Return ${breaks === 1 ? 'once' : `${breaks} times`}` : '',
        tabs > 0 ? `Tab ${tabs === 1 ? 'once' : `${tabs} times`}` : '',
      ].filter((p) => p !== '');
      return {
        title: 'Type text',
        facts: [
          `${[...d.text].length} characters into whatever has the keyboard on the desktop:`,
          ...(presses.length > 0 ? [`This presses ${presses.join(' and ')}.`] : []),
        ],
        verbatim: showControlCharacters(d.text),
      };
    }
    case 'keys':
      return {
        title: 'Press keys',
        facts: [d.repeat === 1 ? `Press ${d.keys}` : `Press ${d.keys} ${d.repeat} times`],
        verbatim: d.keys,
      };
    case 'clipboard_read':
      return {
        title: 'Read the clipboard',
        facts: ["The AI will see the remote desktop's clipboard text."],
      };
    case 'clipboard_write':
      return {
        title: 'Replace the clipboard',
        facts: [`Put ${[...d.text].length} characters on the remote desktop's clipboard:`],
        verbatim: showControlCharacters(d.text),
      };
    case 'mode':
      return {
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
      };
    case 'other':
      return { title: `Run ${d.tool}`, facts: ['With these arguments:'], verbatim: d.args };
    default: {
      const unknown: never = d;
      void unknown;
      return { title: 'Unknown action', facts: ['Deny it.'] };
    }
  }
}

/** The desktop point a request is about (where the crosshair is), if it has one. */
export function pointOf(details: ConfirmDetails): { x: number; y: number } | undefined {
  switch (details.kind) {
    case 'click':
    case 'scroll':
    case 'move':
      return { x: details.x, y: details.y };
    case 'drag':
      return details.from;
    default:
      return undefined;
  }
}
