// The README's two policy tables, derived from the one policy (decideCall) and the permission
// table, so the documentation cannot drift from what the bridge and the viewer enforce: what each
// mode lets the AI do per tool family, and the person's toggles with their defaults. The README
// test compares its tables cell by cell with these rows.
import { MODES, type Mode } from './common.js';
import {
  PERMISSION_DEFAULTS,
  PERMISSION_LABELS,
  PERMISSION_NAMES,
  AUDIT_PREFERENCE_NAMES,
  TOOL_PERMISSIONS,
  EVENT_PERMISSIONS,
  type PersonSettingName,
  type Permissions,
} from './permissions.js';
import { decideCall, type PolicyDecision } from './policy.js';
import type { ToolName } from './tools/names.js';

/** Tool families as the README groups them. */
export const TABLE_GROUPS: ReadonlyArray<{ title: string; tools: readonly ToolName[] }> = [
  {
    title: 'overlays, display info',
    tools: [
      'draw_overlay',
      'remove_overlay',
      'clear_overlays',
      'batch_overlay',
      'get_display_info',
    ],
  },
  {
    title: 'screenshots',
    tools: ['take_screenshot', 'wait_for_screen', 'set_screenshot_frequency'],
  },
  { title: 'typing, keys', tools: ['type_text', 'press_key'] },
  { title: 'clipboard', tools: ['get_clipboard', 'set_clipboard'] },
  { title: 'clicks, drags, scrolls, moves', tools: ['click_at', 'drag', 'scroll', 'mouse_move'] },
];

const WORDS: Readonly<Record<PolicyDecision, string>> = {
  allow: 'yes',
  confirm: 'the person approves each',
  deny: 'denied',
};

const EVERY_TOGGLE_ON = Object.fromEntries(
  [...PERMISSION_NAMES, ...AUDIT_PREFERENCE_NAMES].map((name) => [name, true]),
) as Permissions;

/** What `mode` does to every tool of a family (all toggles on); throws if the family disagrees. */
function familyDecision(mode: Mode, tools: readonly ToolName[]): PolicyDecision {
  const decisions = new Set(
    tools.map(
      (tool) =>
        decideCall({ mode, metadata: undefined, permissions: EVERY_TOGGLE_ON, tool, args: {} })
          .decision,
    ),
  );
  const [only] = decisions;
  if (decisions.size !== 1 || only === undefined) {
    throw new Error(
      `The README groups ${tools.join(', ')} together, but ${mode} decides them differently.`,
    );
  }
  return only;
}

/** Rows of the mode table: header, then one row per mode (custom last, in words). */
export function modeTableRows(): string[][] {
  const header = ['mode', ...TABLE_GROUPS.map((g) => g.title)];
  const rows = MODES.filter((m) => m !== 'custom').map((mode) => [
    mode === 'assist' ? '`assist` (default)' : `\`${mode}\``,
    ...TABLE_GROUPS.map((group) => WORDS[familyDecision(mode, group.tools)]),
  ]);
  const custom = [
    '`custom`',
    ...TABLE_GROUPS.map((group) =>
      familyDecision('custom', group.tools) === 'allow' ? 'yes' : 'per its list (see below)',
    ),
  ];
  return [header, ...rows, custom];
}

function governs(name: PersonSettingName): string {
  const tools = Object.entries(TOOL_PERMISSIONS)
    .filter(([, permission]) => permission === name)
    .map(([tool]) => `\`${tool}\``);
  const events = Object.entries(EVENT_PERMISSIONS)
    .filter(([, permission]) => permission === name)
    .map(([event]) => `${event} events`);
  const all = [...tools, ...events];
  return all.length > 0 ? all.join(', ') : 'the audit log';
}

/** Rows of the permission table: header, then one row per toggle. */
export function permissionTableRows(): string[][] {
  const names: PersonSettingName[] = [...PERMISSION_NAMES, ...AUDIT_PREFERENCE_NAMES];
  return [
    ['toggle (Settings → Permissions)', 'starts', 'governs'],
    ...names.map((name) => [
      PERMISSION_LABELS[name],
      PERMISSION_DEFAULTS[name] ? 'on' : 'off',
      governs(name),
    ]),
  ];
}
