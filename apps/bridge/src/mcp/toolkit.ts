// The bridge side of a tool: `defineTool(name, handle)` pairs a protocol tool definition (name,
// schemas, annotations, from @overlay-companion/protocol) with the function that runs it in the
// bridge. Handlers get parsed args and a ToolContext and return a ToolReply; they report
// failures by throwing ProtocolError (kind + message), which toolCall.ts turns into an isError
// result. Tools live in small files per family under tools/.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ContentBlock, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  toolDefinitions,
  type ToolArgs,
  type ToolDefinitions,
  type ToolName,
  type ToolResult,
} from '@overlay-companion/protocol';
import type { ModeState } from '../policy/modeState.js';
import type { SessionRateLimiter } from '../policy/rateLimit.js';
import type { ViewerHub } from '../relay/viewerHub.js';
import type { EventSubscriptions } from './events/subscriptions.js';
import type { ScreenshotFeed } from './screenshots/feed.js';

/** Bridge-wide services every session shares. */
export interface PlaneServices {
  hub: ViewerHub;
  mode: ModeState;
  /** Aborts when the person presses Stop; a fresh signal after each Stop. */
  stopSignal(): AbortSignal;
}

/** What one MCP session owns. */
export interface SessionState {
  id: string;
  server: McpServer;
  rateLimiter: SessionRateLimiter;
  events: EventSubscriptions;
  screenshots: ScreenshotFeed;
  /** Resource URIs the client subscribed to (resources/subscribe). */
  resourceSubscriptions: Set<string>;
}

export interface ToolContext {
  plane: PlaneServices;
  session: SessionState;
  /** Aborts when the MCP client cancels this request. */
  signal: AbortSignal;
  requestId: RequestId;
}

export interface ToolReply<N extends ToolName = ToolName> {
  structured: ToolResult<N>;
  /** One short sentence for clients that show text only. */
  text: string;
  /** Content before the text, e.g. the screenshot image. */
  content?: ContentBlock[];
}

export interface BridgeTool<N extends ToolName = ToolName> {
  name: N;
  definition: ToolDefinitions[N];
  handle(args: ToolArgs<N>, ctx: ToolContext): Promise<ToolReply<N>>;
}

export function defineTool<N extends ToolName>(
  name: N,
  handle: (args: ToolArgs<N>, ctx: ToolContext) => Promise<ToolReply<N>>,
): BridgeTool<N> {
  return { name, definition: toolDefinitions[name], handle };
}
