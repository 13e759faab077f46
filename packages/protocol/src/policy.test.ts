import { describe, expect, it } from 'vitest';
import { MODES, type Mode } from './common.js';
import {
  PERMISSION_LABELS,
  TOOL_PERMISSIONS,
  defaultPermissions,
  type Permissions,
} from './permissions.js';
import {
  decideCall,
  decideModeChange,
  decidePolicy,
  isModeRaise,
  type CallPolicyInput,
  type PolicyDecision,
} from './policy.js';
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
        'list_desktops',
        'remove_overlay',
        'request_annotation',
        'select_desktop',
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

describe('decideCall (the one policy: permissions, mode, require_user_confirmation)', () => {
  const all = defaultPermissions();
  const decide = (over: Partial<CallPolicyInput>) =>
    decideCall({
      mode: 'autopilot',
      metadata: undefined,
      permissions: all,
      tool: 'click_at',
      args: {},
      ...over,
    });

  it('agrees with the mode rule for every mode and tool when every toggle is on', () => {
    const on = Object.fromEntries(Object.keys(all).map((k) => [k, true])) as Permissions;
    for (const mode of MODES) {
      for (const tool of TOOL_NAMES) {
        expect(decide({ mode, tool, permissions: on }).decision, `${mode} ${tool}`).toBe(
          decidePolicy(mode, undefined, tool),
        );
      }
    }
  });

  it.each(Object.entries(TOOL_PERMISSIONS))(
    '%s is denied whatever the mode when its toggle (%s) is off, naming the toggle',
    (tool, permission) => {
      const off = { ...all, [permission]: false };
      for (const mode of MODES) {
        const verdict = decide({ mode, tool, permissions: off });
        expect(verdict).toMatchObject({ decision: 'deny', by: 'permission', permission });
        if (verdict.decision === 'deny') {
          expect(verdict.message).toContain(PERMISSION_LABELS[permission]);
        }
      }
    },
  );

  it('clipboard read is off until the person turns it on (the seed: explicit permission)', () => {
    expect(decide({ tool: 'get_clipboard' })).toMatchObject({
      decision: 'deny',
      permission: 'clipboard_read',
    });
    expect(decide({ tool: 'set_clipboard' }).decision).toBe('allow');
  });

  it('denies every tool that needs a permission while the permissions are unknown', () => {
    for (const tool of Object.keys(TOOL_PERMISSIONS)) {
      expect(decide({ tool, permissions: undefined }).decision, tool).toBe('deny');
    }
    expect(decide({ tool: 'draw_overlay', permissions: undefined }).decision).toBe('allow');
  });

  it('turns an allowed call into confirm when the AI asks for it, never the other way', () => {
    expect(decide({ args: { require_user_confirmation: true } }).decision).toBe('confirm');
    expect(decide({ mode: 'passive', args: { require_user_confirmation: true } }).decision).toBe(
      'deny',
    );
    expect(decide({ mode: 'assist', args: { require_user_confirmation: false } }).decision).toBe(
      'confirm',
    );
  });

  it('denies unknown tools, including names that exist on Object.prototype', () => {
    for (const tool of ['rm_rf', 'toString', '__proto__', 'constructor']) {
      expect(decide({ tool }).decision, tool).toBe('deny');
    }
  });

  it('explains a mode denial with the modes that would allow it and what the person can do', () => {
    const verdict = decide({ mode: 'passive' });
    expect(verdict.decision).toBe('deny');
    if (verdict.decision === 'deny') {
      expect(verdict.by).toBe('mode');
      expect(verdict.message).toMatch(/not allowed in passive mode/);
      expect(verdict.message).toMatch(/allowed in assist .*autopilot/);
      expect(verdict.message).toMatch(/change the mode in the viewer/);
    }
  });
});

describe('decideModeChange', () => {
  it('applies lowering at once for everyone, asks the person for a raise, and never lets a headless viewer raise', () => {
    for (const from of MODES) {
      for (const to of MODES) {
        const raise = isModeRaise(from, to);
        expect(decideModeChange(from, to, 'person')).toBe(raise ? 'approve' : 'apply');
        expect(decideModeChange(from, to, 'ai')).toBe(raise ? 'approve' : 'apply');
        expect(decideModeChange(from, to, 'headless_viewer')).toBe(raise ? 'refuse' : 'apply');
      }
    }
  });
});
