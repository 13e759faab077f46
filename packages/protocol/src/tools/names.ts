// Tool names, their families and which of them the mode policy governs. Kept apart from the
// definitions so policy code and message schemas can depend on names without importing every
// schema (index.test.ts checks this table agrees with the registry).

export const TOOL_KINDS = {
  draw_overlay: 'overlay',
  remove_overlay: 'overlay',
  clear_overlays: 'overlay',
  batch_overlay: 'overlay',
  take_screenshot: 'screen',
  get_display_info: 'screen',
  wait_for_screen: 'screen',
  set_screenshot_frequency: 'screen',
  click_at: 'input',
  type_text: 'input',
  press_key: 'input',
  scroll: 'input',
  drag: 'input',
  mouse_move: 'input',
  set_mode: 'mode',
  get_clipboard: 'clipboard',
  set_clipboard: 'clipboard',
  subscribe_events: 'events',
  unsubscribe_events: 'events',
  get_events: 'events',
} as const;

export type ToolName = keyof typeof TOOL_KINDS;
export type ToolKind = (typeof TOOL_KINDS)[ToolName];

export const TOOL_NAMES = Object.keys(TOOL_KINDS) as ToolName[];
export const TOOL_FAMILIES = ['overlay', 'screen', 'input', 'mode', 'clipboard', 'events'] as const;

/**
 * Tools that act on the person's desktop or read their clipboard: the mode policy (policy.ts)
 * decides allow / confirm / deny for these. Every other tool is always allowed by the mode.
 */
export const INPUT_POLICY_TOOLS = [
  'click_at',
  'type_text',
  'press_key',
  'scroll',
  'drag',
  'mouse_move',
  'get_clipboard',
  'set_clipboard',
] as const satisfies readonly ToolName[];

/**
 * The input tools that act on the desktop itself (pointer and keys), not the clipboard: they
 * wait while the person uses the desktop and are drawn as the AI's pointer in the viewer.
 */
export const DESKTOP_INPUT_TOOLS = INPUT_POLICY_TOOLS.filter(
  (name) => name !== 'get_clipboard' && name !== 'set_clipboard',
);
export type InputPolicyToolName = (typeof INPUT_POLICY_TOOLS)[number];

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_KINDS, name);
}

export function needsInputPolicy(name: ToolName): name is InputPolicyToolName {
  return (INPUT_POLICY_TOOLS as readonly string[]).includes(name);
}
