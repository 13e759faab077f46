// Every bridge tool, derived from the protocol's registry in its order: a tool whose definition
// runs in the bridge takes its handler from `bridgeRun` (a mapped type: a bridge tool without a
// handler does not compile), a viewer tool is relayed by relayTool.ts unless it has its own
// handler in `viewerFinish` (a finishing step, or draw_overlay, which the bridge may settle).
// index.test.ts checks the result covers every definition.
import {
  isViewerTool,
  toolList,
  type BridgeToolName,
  type ToolName,
  type ViewerToolName,
} from '@overlay-companion/protocol';
import type { BridgeTool } from '../toolkit.js';
import { getEvents, subscribeEvents, unsubscribeEvents } from './events.js';
import { listDesktops, selectDesktop } from './desktops.js';
import { drawOverlay } from './overlayDraw.js';
import { setMode } from './mode.js';
import { relayTool } from './relayTool.js';
import { setScreenshotFrequency, takeScreenshot } from './screen.js';
import { requestAnnotation } from './teach.js';

const bridgeRun: { readonly [N in BridgeToolName]: BridgeTool<N> } = {
  set_screenshot_frequency: setScreenshotFrequency,
  set_mode: setMode,
  subscribe_events: subscribeEvents,
  unsubscribe_events: unsubscribeEvents,
  get_events: getEvents,
  list_desktops: listDesktops,
  select_desktop: selectDesktop,
};

const viewerFinish: { readonly [N in ViewerToolName]?: BridgeTool<N> } = {
  draw_overlay: drawOverlay,
  take_screenshot: takeScreenshot,
  request_annotation: requestAnnotation,
};

function bridgeToolFor(name: ToolName): BridgeTool<ToolName> {
  const tool = isViewerTool(name) ? (viewerFinish[name] ?? relayTool(name)) : bridgeRun[name];
  return tool;
}

/** In the order the protocol lists them (the order models see). */
export const bridgeTools: readonly BridgeTool<ToolName>[] = toolList.map((d) =>
  bridgeToolFor(d.name),
);

const byName = new Map<string, BridgeTool<ToolName>>(bridgeTools.map((t) => [t.name, t]));

export function findTool(name: string): BridgeTool<ToolName> | undefined {
  return byName.get(name);
}
