// Tool names and the sets derived from the definitions: which tools run in the viewer and which
// in the bridge, and which the mode policy governs (every policy class but `free`), so policy
// code, message schemas and both apps ask one place. Nothing here is written by hand per tool.
import type { z } from 'zod';
import type { PolicyClass } from './define.js';
import { toolDefinitions, type ToolDefinitions } from './registry.js';

export type ToolName = keyof ToolDefinitions;

/** Tools relayed to the person's control viewer. */
export type ViewerToolName = {
  [N in ToolName]: ToolDefinitions[N]['runsIn'] extends 'viewer' ? N : never;
}[ToolName];
/** Tools the bridge answers itself. */
export type BridgeToolName = Exclude<ToolName, ViewerToolName>;
/** Tools the mode policy governs (policy class other than free). */
export type InputPolicyToolName = {
  [N in ToolName]: ToolDefinitions[N]['policyClass'] extends 'free' ? never : N;
}[ToolName];

export const TOOL_NAMES = Object.keys(toolDefinitions) as ToolName[];

export const VIEWER_TOOL_NAMES = TOOL_NAMES.filter(
  (name): name is ViewerToolName => toolDefinitions[name].runsIn === 'viewer',
);
export const BRIDGE_TOOL_NAMES = TOOL_NAMES.filter(
  (name): name is BridgeToolName => toolDefinitions[name].runsIn === 'bridge',
);

/**
 * Tools that act on the person's desktop or read their clipboard: the mode policy (policy.ts)
 * decides allow / confirm / deny for these. Every other tool is always allowed by the mode.
 */
export const INPUT_POLICY_TOOLS = TOOL_NAMES.filter(
  (name): name is InputPolicyToolName => toolDefinitions[name].policyClass !== 'free',
);

/**
 * The input tools that act on the desktop itself (pointer and keys), not the clipboard: they
 * wait while the person uses the desktop and are drawn as the AI's pointer in the viewer.
 */
export const DESKTOP_INPUT_TOOLS = INPUT_POLICY_TOOLS.filter((name) => {
  const policy = toolDefinitions[name].policyClass;
  return policy === 'pointer' || policy === 'keys';
});

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(toolDefinitions, name);
}

export function isViewerTool(name: ToolName): name is ViewerToolName {
  return toolDefinitions[name].runsIn === 'viewer';
}

export function needsInputPolicy(name: ToolName): name is InputPolicyToolName {
  return toolDefinitions[name].policyClass !== 'free';
}

export function policyClassOf(name: ToolName): PolicyClass {
  return toolDefinitions[name].policyClass;
}

/** Args after parsing: defaults applied. This is what tool_call.args carries. */
export type ToolArgs<N extends ToolName> = z.output<ToolDefinitions[N]['input']>;
/** The MCP structured result. */
export type ToolResult<N extends ToolName> = z.output<ToolDefinitions[N]['result']>;
/** What the viewer sends in tool_result.result for this tool. */
export type ToolViewerResult<N extends ToolName> = z.output<ToolDefinitions[N]['viewerResult']>;

/**
 * Tools an AI may call on a desktop whose person in charge is not its own person (a watcher's
 * AI, with a view or control grant): choosing and listing desktops, and looking at the screen
 * (read-only screen tools; the desktop's privacy masks still apply). Everything else — input,
 * overlays, the mode, events, teach mode — needs the person in charge.
 */
export const WATCHER_TOOLS: ReadonlySet<ToolName> = new Set(
  TOOL_NAMES.filter((name) => {
    const def = toolDefinitions[name];
    return def.kind === 'desktop' || (def.kind === 'screen' && def.annotations.readOnlyHint);
  }),
);
