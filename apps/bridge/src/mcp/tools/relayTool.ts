// The one bridge handler for every tool whose definition runs in the viewer: the policy gate
// and the relay (relayWithPolicy), then the viewer's result as the structured result. A tool
// may add a finishing step (take_screenshot turns the image into MCP image content), given here
// as `finish`; nothing else about a viewer tool is written in the bridge.
import type { ToolArgs, ToolViewerResult, ViewerToolName } from '@overlay-companion/protocol';
import { relayWithPolicy } from '../relayCall.js';
import { implementTool, type BridgeTool, type ToolContext, type ToolReply } from '../toolkit.js';

export type FinishRelay<N extends ViewerToolName> = (
  result: ToolViewerResult<N>,
  args: ToolArgs<N>,
  ctx: ToolContext,
) => ToolReply<N> | Promise<ToolReply<N>>;

export function relayTool<N extends ViewerToolName>(
  name: N,
  finish?: FinishRelay<N>,
): BridgeTool<N> {
  return implementTool(name, async (args, ctx) => {
    const { result } = await relayWithPolicy(ctx, name, args);
    if (finish !== undefined) return finish(result, args, ctx);
    // Without a finishing step the viewer's result is the MCP result (same schema).
    return { structured: result as unknown as ToolReply<N>['structured'] };
  });
}
