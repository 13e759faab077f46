// The tool registry: every MCP tool definition, keyed by name and as a list, plus the types
// that tie a tool name to its args and results. The bridge registers `toolList` with the MCP
// SDK; the viewer looks up `toolDefinitions[name]` to re-parse the args of a tool_call.
import type { z } from 'zod';
import { clearOverlays, drawOverlay, removeOverlay, batchOverlay } from './overlay.js';
import { getDisplayInfo, setScreenshotFrequency, takeScreenshot, waitForScreen } from './screen.js';
import { clickAt, drag, mouseMove, pressKey, scroll, typeText } from './input.js';
import { setMode } from './mode.js';
import { getClipboard, setClipboard } from './clipboard.js';
import { getEvents, subscribeEvents, unsubscribeEvents } from './events.js';
import type { ToolName } from './names.js';

export const toolDefinitions = {
  draw_overlay: drawOverlay,
  remove_overlay: removeOverlay,
  clear_overlays: clearOverlays,
  batch_overlay: batchOverlay,
  take_screenshot: takeScreenshot,
  get_display_info: getDisplayInfo,
  wait_for_screen: waitForScreen,
  set_screenshot_frequency: setScreenshotFrequency,
  click_at: clickAt,
  type_text: typeText,
  press_key: pressKey,
  scroll,
  drag,
  mouse_move: mouseMove,
  set_mode: setMode,
  get_clipboard: getClipboard,
  set_clipboard: setClipboard,
  subscribe_events: subscribeEvents,
  unsubscribe_events: unsubscribeEvents,
  get_events: getEvents,
} as const satisfies { [N in ToolName]: { name: N } };

export type ToolDefinitions = typeof toolDefinitions;
export type AnyToolDefinition = ToolDefinitions[ToolName];

/** Every definition, in registry order (the order tools are listed to the model). */
export const toolList: readonly AnyToolDefinition[] = Object.values(toolDefinitions);

/** Args as the AI sends them (defaults still optional). */
export type ToolInput<N extends ToolName> = z.input<ToolDefinitions[N]['input']>;
/** Args after parsing: defaults applied. This is what tool_call.args carries. */
export type ToolArgs<N extends ToolName> = z.output<ToolDefinitions[N]['input']>;
/** The MCP structured result. */
export type ToolResult<N extends ToolName> = z.output<ToolDefinitions[N]['result']>;
/** What the viewer sends in tool_result.result for this tool. */
export type ToolViewerResult<N extends ToolName> = z.output<ToolDefinitions[N]['viewerResult']>;

export { defineTool } from './define.js';
export type { ToolAnnotations, ToolDefinition } from './define.js';
export * from './names.js';
export * from './overlay.js';
export * from './screen.js';
export * from './input.js';
export * from './mode.js';
export * from './clipboard.js';
export * from './events.js';
