import { describe, expect, it } from 'vitest';
import { MODES, type Mode } from './common.js';
import { decidePolicy, isModeRaise, type PolicyDecision } from './policy.js';
import { INPUT_POLICY_TOOLS, TOOL_NAMES, needsInputPolicy } from './tools/names.js';

const NON_INPUT = TOOL_NAMES.filter((name) => !needsInputPolicy(name));
const POINTER = ['click_at', 'scroll', 'drag', 'mouse_move'] as const;
const TYPING_AND_CLIPBOARD = ['type_text', 'press_key', 'get_clipboard', 'set_clipboard'] as const;

describe('decidePolicy', () => {
  it('the tool families split as documented', () => {
    expect([...POINTER, ...TYPING_AND_CLIPBOARD].sort()).toEqual([...INPUT_POLICY_TOOLS].sort());
    expect(NON_INPUT.sort()).toEqual(
      [
        'batch_overlay',
        'clear_overlays',
        'draw_overlay',
        'get_display_info',
        'get_events',
        'remove_overlay',
        'set_mode',
        'set_screenshot_frequency',
        'subscribe_events',
        'take_screenshot',
        'unsubscribe_events',
        'wait_for_screen',
      ].sort(),
    );
  });

  type Rule = { pointer: PolicyDecision; typing: PolicyDecision };
  const expected: Record<Exclude<Mode, 'custom'>, Rule> = {
    passive: { pointer: 'deny', typing: 'deny' },
    assist: { pointer: 'confirm', typing: 'confirm' },
    composing: { pointer: 'confirm', typing: 'allow' },
    autopilot: { pointer: 'allow', typing: 'allow' },
  };

  for (const [mode, rule] of Object.entries(expected) as [Exclude<Mode, 'custom'>, Rule][]) {
    it.each(POINTER)(`${mode}: %s → ${rule.pointer}`, (tool) => {
      expect(decidePolicy(mode, undefined, tool)).toBe(rule.pointer);
    });
    it.each(TYPING_AND_CLIPBOARD)(`${mode}: %s → ${rule.typing}`, (tool) => {
      expect(decidePolicy(mode, undefined, tool)).toBe(rule.typing);
    });
  }

  it.each(MODES.flatMap((mode) => NON_INPUT.map((tool) => [mode, tool] as const)))(
    '%s: non-input tool %s → allow (even with a malformed custom policy)',
    (mode, tool) => {
      expect(decidePolicy(mode, { allow: 42 }, tool)).toBe('allow');
    },
  );

  it.each(MODES)('%s: an unknown tool → deny', (mode) => {
    expect(decidePolicy(mode, { allow: ['click_at'] }, 'rm_rf')).toBe('deny');
    expect(decidePolicy(mode, {}, '__proto__')).toBe('deny');
  });

  const custom = { allow: ['type_text', 'click_at'], deny: ['click_at', 'set_clipboard'] };
  it.each([
    ['type_text', 'allow'],
    ['click_at', 'deny'], // deny wins over allow
    ['set_clipboard', 'deny'],
    ['press_key', 'confirm'], // unlisted → ask the person
    ['drag', 'confirm'],
  ] as const)('custom %j: %s → %s', (tool, decision) => {
    expect(decidePolicy('custom', custom, tool)).toBe(decision);
  });

  it.each([undefined, {}, { allow: [] }])('custom with empty policy %j confirms all input', (m) => {
    for (const tool of INPUT_POLICY_TOOLS) expect(decidePolicy('custom', m, tool)).toBe('confirm');
  });

  it.each([
    ['allow is not a list', { allow: 'click_at' }],
    ['unknown tool in allow', { allow: ['type_text', 'format_disk'] }],
    ['non-input tool listed', { deny: ['take_screenshot'] }],
    ['unknown key', { allow: ['type_text'], allowAll: true }],
    ['not an object', 'autopilot'],
    ['null', null],
    ['array', ['type_text']],
  ])('custom with malformed policy (%s) denies every input tool', (_why, metadata) => {
    for (const tool of INPUT_POLICY_TOOLS) {
      expect(decidePolicy('custom', metadata, tool)).toBe('deny');
    }
  });
});

describe('isModeRaise', () => {
  // Rows: from; columns: to, in MODES order (passive, assist, autopilot, composing, custom).
  const table: Record<Mode, boolean[]> = {
    passive: [false, true, true, true, true],
    assist: [false, false, true, true, true],
    autopilot: [false, false, false, false, true],
    composing: [false, false, true, false, true],
    custom: [false, true, true, true, true],
  };
  it.each(MODES.flatMap((from) => MODES.map((to, i) => [from, to, table[from][i]] as const)))(
    '%s → %s raise: %s',
    (from, to, raise) => {
      expect(isModeRaise(from, to)).toBe(raise);
    },
  );
});
