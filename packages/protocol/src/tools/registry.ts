// The tool registry: every MCP tool definition, keyed by name, in the order models see them.
// Everything else about tools (names, which run in the viewer, which the mode governs, the
// tool_call message, the bridge's tool list, the viewer's dispatch) is derived from this object.
import { batchOverlay, clearOverlays, drawOverlay, removeOverlay } from './overlay.js';
import { getDisplayInfo, setScreenshotFrequency, takeScreenshot, waitForScreen } from './screen.js';
import { clickAt, drag, mouseMove, pressKey, scroll, typeText } from './input.js';
import { setMode } from './mode.js';
import { getClipboard, setClipboard } from './clipboard.js';
import { getEvents, subscribeEvents, unsubscribeEvents } from './events.js';
import { requestAnnotation } from './teach.js';
import { listDesktops, selectDesktop } from './desktops.js';

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
  request_annotation: requestAnnotation,
  list_desktops: listDesktops,
  select_desktop: selectDesktop,
} as const;

export type ToolDefinitions = typeof toolDefinitions;
