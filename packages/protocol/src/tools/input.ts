// Input tools: click_at, type_text, press_key, scroll, drag, mouse_move. All are governed by
// the mode policy (policy.ts); coordinates are desktop pixels (numbers, rounded to the nearest
// pixel), monitor-relative with monitor_index. The viewer turns them into Guacamole mouse/key
// instructions.
import { z } from 'zod';
import { InputCoordinate, InputPoint, MonitorIndex, MouseButton } from '../common.js';
import {
  MAX_KEY_COMBO_LENGTH,
  MAX_TYPE_TEXT_LENGTH,
  textKeysyms,
  tryParseKeyCombo,
} from '../keys.js';
import { QUICK_CALL_MS, SLACK_MS, defineTool } from './define.js';
import { INTENT_NOTE, Intent } from './intent.js';
import { IgnoredKeys } from './looseArgs.js';
import { plainText } from './textArgs.js';

const INPUT_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: true,
  openWorldHint: false,
} as const;

const POLICY_NOTE = `Depending on the person's mode the viewer may ask them first, or refuse with permission_denied (see set_mode). ${INTENT_NOTE} While the person is using the desktop the action waits until they pause (waited_for_person_ms says how long); while they have taken over it is not asked about and fails as cancelled at its deadline, saying so, and an action allowed before or during a take-over runs after they hand back only if they choose Run then.`;

const RequireUserConfirmation = z
  .boolean()
  .default(false)
  .describe(
    'Ask the person to approve this action even when the mode would allow it (use for anything risky).',
  );

/** Longest pause action_timing_hint may ask for, before or after. */
export const MAX_ACTION_DELAY_MS = 10_000;
const DelayMs = z.number().min(0).max(MAX_ACTION_DELAY_MS).transform(Math.round);

/** The seed's action_timing_hint object; unknown keys are accepted and reported as ignored. */
export const ActionTiming = z.looseObject({
  delay_before_ms: DelayMs.optional().describe(
    'Pause before acting, in milliseconds (0..10000), e.g. to let a menu finish opening.',
  ),
  delay_after_ms: DelayMs.optional().describe(
    'Pause after acting before the call returns (0..10000), e.g. to let the click take effect before your next screenshot.',
  ),
});
export const ACTION_TIMING_KEYS: readonly string[] = Object.keys(ActionTiming.shape);

/** The hint after parsing: both delays, 0 when not asked for. */
export interface ActionTimingArgs {
  delay_before_ms: number;
  delay_after_ms: number;
}

const ActionTimingHint = z
  .union([DelayMs, ActionTiming])
  .transform((hint): ActionTimingArgs =>
    typeof hint === 'number'
      ? { delay_before_ms: hint, delay_after_ms: 0 }
      : { delay_before_ms: hint.delay_before_ms ?? 0, delay_after_ms: hint.delay_after_ms ?? 0 },
  )
  .optional()
  .describe(
    'Timing hints: { "delay_before_ms": …, "delay_after_ms": … } (milliseconds, 0..10000 each; other keys are ignored and listed in the result\'s ignored field). A bare number means delay_before_ms.',
  );

/** Total pause an action_timing_hint adds, for the call's time budget. */
function hintMs(hint: ActionTimingArgs | undefined): number {
  return hint === undefined ? 0 : hint.delay_before_ms + hint.delay_after_ms;
}

/** Loose object arguments of the tools that take action_timing_hint. */
const TIMING_LOOSE = { action_timing_hint: ACTION_TIMING_KEYS } as const;

/** The tools' one-sentence "(approved by the person)" note. */
function confirmedNote(confirmed: boolean): string {
  return confirmed ? ' (approved by the person)' : '';
}

const Success = z.boolean().describe('True when the input was delivered to the remote desktop.');
/** Present when the action waited for the person to stop using the desktop first. */
export const WaitedForPerson = z
  .int()
  .min(0)
  .max(3_600_000)
  .optional()
  .describe('Milliseconds the action waited because the person was using the desktop.');

export const ClickAtInput = z.strictObject({
  x: InputCoordinate.describe(
    'Horizontal position in pixels (desktop, or monitor-relative); fractions are rounded to the nearest pixel.',
  ),
  y: InputCoordinate.describe(
    'Vertical position in pixels (desktop, or monitor-relative); fractions are rounded.',
  ),
  button: MouseButton.default('left'),
  clicks: z.int().min(1).max(3).default(1).describe('1 = click, 2 = double, 3 = triple click.'),
  require_user_confirmation: RequireUserConfirmation,
  action_timing_hint: ActionTimingHint,
  monitor_index: MonitorIndex.optional(),
  intent: Intent,
});
export const ClickAtResult = z.strictObject({
  success: Success,
  was_confirmed: z.boolean().describe('True when the person approved this click in the viewer.'),
  waited_for_person_ms: WaitedForPerson,
  ignored: IgnoredKeys,
});

export const clickAt = defineTool({
  name: 'click_at',
  title: 'Click at',
  description: `Moves the pointer to (x, y) in desktop pixels (monitor-relative with monitor_index) and clicks. Take a screenshot first to find the target; consider draw_overlay to show the person where you will click. ${POLICY_NOTE} Returns success and whether the person confirmed it.`,
  input: ClickAtInput,
  result: ClickAtResult,
  annotations: INPUT_ANNOTATIONS,
  kind: 'input',
  runsIn: 'viewer',
  policyClass: 'pointer',
  permission: 'input_actions',
  looseObjects: TIMING_LOOSE,
  budgetMs: (a) => QUICK_CALL_MS + hintMs(a.action_timing_hint),
  preview: (a) => ({
    kind: 'click',
    x: a.x,
    y: a.y,
    button: a.button,
    clicks: a.clicks,
    monitor_index: a.monitor_index,
  }),
  summarize: (a, r) =>
    r.success
      ? `${a.clicks === 1 ? 'Clicked' : `Clicked ${a.clicks}x`} ${a.button} at ${a.x},${a.y}${a.monitor_index === undefined ? '' : ` on monitor ${a.monitor_index}`}${confirmedNote(r.was_confirmed)}.`
      : `The click at ${a.x},${a.y} was not delivered.`,
});

export const TypeTextInput = z.strictObject({
  text: z
    .string()
    .min(1)
    .max(MAX_TYPE_TEXT_LENGTH)
    .superRefine((text, ctx) => {
      const result = textKeysyms(text);
      if (!result.ok) {
        const hex = result.codePoint.toString(16).toUpperCase().padStart(4, '0');
        ctx.addIssue({
          code: 'custom',
          message: `contains control character U+${hex} at index ${result.index}; only \\n, \\r and \\t are typeable (as Return and Tab)`,
        });
      }
    })
    .describe('Text to type, 1..10000 characters; "\\n" presses Return and "\\t" Tab.'),
  typing_speed_wpm: z
    .number()
    .min(10)
    .max(1000)
    .default(60)
    .describe('Typing speed in words per minute (5 characters a word), default 60.'),
  require_user_confirmation: RequireUserConfirmation,
  action_timing_hint: ActionTimingHint,
  intent: Intent,
});
export const TypeTextResult = z.strictObject({
  success: Success,
  typed_length: z.int().min(0).max(MAX_TYPE_TEXT_LENGTH).describe('Characters typed.'),
  waited_for_person_ms: WaitedForPerson,
  ignored: IgnoredKeys,
});

export const typeText = defineTool({
  name: 'type_text',
  title: 'Type text',
  description: `Types text into whatever has keyboard focus on the remote desktop, one key press per character. Click the target field first. For shortcuts such as ctrl+c use press_key instead. ${POLICY_NOTE} Returns how many characters were typed.`,
  input: TypeTextInput,
  result: TypeTextResult,
  annotations: INPUT_ANNOTATIONS,
  kind: 'input',
  runsIn: 'viewer',
  policyClass: 'keys',
  permission: 'input_actions',
  looseObjects: TIMING_LOOSE,
  sensitiveArgs: ['text'],
  preview: (a) => ({ kind: 'type', text: a.text }),
  budgetMs: (a) => {
    const charsPerSecond = (a.typing_speed_wpm * 5) / 60;
    return (
      Math.ceil(([...a.text].length / charsPerSecond) * 1000) +
      hintMs(a.action_timing_hint) +
      2 * SLACK_MS
    );
  },
  summarize: (a, r) => `Typed ${r.typed_length} of ${[...a.text].length} character(s).`,
});

export const KeyComboString = plainText(
  z
    .string()
    .min(1)
    .max(MAX_KEY_COMBO_LENGTH)
    .superRefine((value, ctx) => {
      const parsed = tryParseKeyCombo(value);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
    }),
  'one key combo by name (ctrl+c, Return), not text typed',
);

export const PressKeyInput = z.strictObject({
  keys: KeyComboString.describe(
    'One key combo: modifiers ctrl, alt, shift, super, meta joined by "+" before one key, which is a name (Return, Tab, Escape, BackSpace, Delete, Home, End, Page_Up, Page_Down, Left, Up, Right, Down, Insert, space, F1..F24) or a single character. Examples: "ctrl+alt+t", "Return", "F5", "shift+Tab", "ctrl+c".',
  ),
  repeat: z.int().min(1).max(50).default(1).describe('Press the combo this many times (1..50).'),
  require_user_confirmation: RequireUserConfirmation,
  intent: Intent,
});
export const PressKeyResult = z.strictObject({
  success: Success,
  keysyms: z
    .array(z.int().min(0).max(0x1ffffff))
    .min(1)
    .max(6)
    .describe('X11 keysyms pressed, modifiers first; released in reverse order.'),
  waited_for_person_ms: WaitedForPerson,
});

export const pressKey = defineTool({
  name: 'press_key',
  title: 'Press key',
  description: `Presses one key or shortcut on the remote desktop, such as "Return", "ctrl+s" or "alt+F4". Use type_text for ordinary text. ${POLICY_NOTE} Returns the X11 keysyms pressed.`,
  input: PressKeyInput,
  result: PressKeyResult,
  annotations: INPUT_ANNOTATIONS,
  kind: 'input',
  runsIn: 'viewer',
  policyClass: 'keys',
  permission: 'input_actions',
  budgetMs: (a) => QUICK_CALL_MS + a.repeat * 100,
  preview: (a) => ({ kind: 'keys', keys: a.keys, repeat: a.repeat }),
  summarize: (a, r) =>
    r.success
      ? `Pressed ${a.keys}${a.repeat > 1 ? ` ${a.repeat} times` : ''}.`
      : `${a.keys} was not delivered.`,
});

export const ScrollInput = z.strictObject({
  x: InputCoordinate.describe(
    'Horizontal pointer position while scrolling (desktop pixels, or monitor-relative).',
  ),
  y: InputCoordinate.describe(
    'Vertical pointer position while scrolling (desktop pixels, or monitor-relative).',
  ),
  direction: z.enum(['up', 'down', 'left', 'right']).describe('Scroll direction.'),
  amount: z.int().min(1).max(50).default(3).describe('Wheel steps, 1..50 (default 3).'),
  monitor_index: MonitorIndex.optional(),
  intent: Intent,
});
export const SuccessResult = z.strictObject({
  success: Success,
  waited_for_person_ms: WaitedForPerson,
});

export const scroll = defineTool({
  name: 'scroll',
  title: 'Scroll',
  description: `Moves the pointer to (x, y) in desktop pixels (monitor-relative with monitor_index) and turns the mouse wheel by amount steps. The pointer position decides which window scrolls. ${POLICY_NOTE} Returns success.`,
  input: ScrollInput,
  result: SuccessResult,
  annotations: INPUT_ANNOTATIONS,
  kind: 'input',
  runsIn: 'viewer',
  policyClass: 'pointer',
  permission: 'input_actions',
  preview: (a) => ({
    kind: 'scroll',
    x: a.x,
    y: a.y,
    direction: a.direction,
    amount: a.amount,
    monitor_index: a.monitor_index,
  }),
  summarize: (a, r) =>
    r.success
      ? `Scrolled ${a.direction} ${a.amount} step(s) at ${a.x},${a.y}.`
      : 'The scroll was not delivered.',
});

export const DragInput = z.strictObject({
  from: InputPoint.describe(
    'Start point (desktop pixels, or monitor-relative), where the button is pressed.',
  ),
  to: InputPoint.describe(
    'End point (desktop pixels, or monitor-relative), where the button is released.',
  ),
  button: MouseButton.default('left'),
  duration_ms: z
    .int()
    .min(0)
    .max(10_000)
    .default(300)
    .describe('How long the move from start to end takes, in milliseconds (default 300).'),
  monitor_index: MonitorIndex.optional(),
  intent: Intent,
});

export const drag = defineTool({
  name: 'drag',
  title: 'Drag',
  description: `Presses a mouse button at from, moves to to over duration_ms, and releases: for moving windows, selecting text, sliders. Coordinates are desktop pixels (both monitor-relative with monitor_index). ${POLICY_NOTE} Returns success.`,
  input: DragInput,
  result: SuccessResult,
  annotations: INPUT_ANNOTATIONS,
  kind: 'input',
  runsIn: 'viewer',
  policyClass: 'pointer',
  permission: 'input_actions',
  budgetMs: (a) => QUICK_CALL_MS + a.duration_ms,
  preview: (a) => ({
    kind: 'drag',
    from: a.from,
    to: a.to,
    button: a.button,
    monitor_index: a.monitor_index,
  }),
  summarize: (a, r) =>
    r.success
      ? `Dragged from ${a.from.x},${a.from.y} to ${a.to.x},${a.to.y}.`
      : 'The drag was not delivered.',
});

export const MouseMoveInput = z.strictObject({
  x: InputCoordinate.describe('Horizontal position (desktop pixels, or monitor-relative).'),
  y: InputCoordinate.describe('Vertical position (desktop pixels, or monitor-relative).'),
  monitor_index: MonitorIndex.optional(),
  intent: Intent,
});

export const mouseMove = defineTool({
  name: 'mouse_move',
  title: 'Move mouse',
  description: `Moves the pointer to (x, y) in desktop pixels (monitor-relative with monitor_index) without clicking, e.g. to reveal a tooltip or hover menu. ${POLICY_NOTE} Returns success.`,
  input: MouseMoveInput,
  result: SuccessResult,
  annotations: { ...INPUT_ANNOTATIONS, destructiveHint: false, idempotentHint: true },
  kind: 'input',
  runsIn: 'viewer',
  policyClass: 'pointer',
  permission: 'input_actions',
  preview: (a) => ({ kind: 'move', x: a.x, y: a.y, monitor_index: a.monitor_index }),
  summarize: (a, r) =>
    r.success ? `Moved the pointer to ${a.x},${a.y}.` : 'The move was not delivered.',
});
