// Every bridge tool, in the protocol registry's order. `bridgeTools` must cover the protocol's
// TOOL_NAMES exactly (index.test.ts checks), so a tool added to the protocol cannot be
// forgotten here.
import type { ToolName } from '@overlay-companion/protocol';
import { toolList } from '@overlay-companion/protocol';
import type { BridgeTool } from '../toolkit.js';
import { clipboardTools } from './clipboard.js';
import { eventTools } from './events.js';
import { inputTools } from './input.js';
import { modeTools } from './mode.js';
import { overlayTools } from './overlay.js';
import { screenTools } from './screen.js';

const all: readonly BridgeTool<ToolName>[] = [
  ...overlayTools,
  ...screenTools,
  ...inputTools,
  ...modeTools,
  ...clipboardTools,
  ...eventTools,
];

const byName = new Map<string, BridgeTool<ToolName>>(all.map((t) => [t.name, t]));

/** In the order the protocol lists them (the order models see). */
export const bridgeTools: readonly BridgeTool<ToolName>[] = toolList
  .map((d) => byName.get(d.name))
  .filter((t): t is BridgeTool<ToolName> => t !== undefined);

export function findTool(name: string): BridgeTool<ToolName> | undefined {
  return byName.get(name);
}
