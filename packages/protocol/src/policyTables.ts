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
import { TOOL_NAMES, type ToolName } from './tools/names.js';
import { toolDefinitions } from './tools/registry.js';
import type { AnyToolDefinition } from './tools/index.js';

/** The mode table's columns, in order; each tool's column comes from its definition. */
const COLUMNS = [
  'overlays, display info',
  'screenshots',
  'typing, keys',
  'clipboard',
  'clicks, drags, scrolls, moves',
] as const;

/**
 * The column a tool is counted in: input by its policy class; free tools by whether they need a
 * toggle (the screen) or not (overlays, display info). Tools that are neither — the mode, events,
 * teach mode, desktops — are always allowed and have no column.
 */
function columnOf(definition: AnyToolDefinition): (typeof COLUMNS)[number] | undefined {
  switch (definition.policyClass) {
    case 'keys':
      return 'typing, keys';
    case 'clipboard':
      return 'clipboard';
    case 'pointer':
      return 'clicks, drags, scrolls, moves';
    case 'free':
      if (definition.kind === 'overlay' || definition.kind === 'screen')
        return definition.permission === undefined ? 'overlays, display info' : 'screenshots';
      return undefined;
  }
}

/** Tool families as the README's mode table groups them, from the definitions. */
const TABLE_GROUPS: ReadonlyArray<{ title: string; tools: readonly ToolName[] }> = COLUMNS.map(
  (title) => ({
    title,
    tools: TOOL_NAMES.filter((name) => columnOf(toolDefinitions[name]) === title),
  }),
);

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
