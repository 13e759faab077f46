// The bridge side of a tool. Every tool's schemas, words, budget, policy class and summary text
// come from its protocol definition; what the bridge adds is how it runs: tools that run in the
// viewer are relayed by one generic handler (tools/relayTool.ts, with an optional per-tool
// finishing step), tools that run in the bridge have a handler here (tools/*.ts). Handlers get
// parsed args and a ToolContext and return a ToolReply; they report failures by throwing
// ProtocolError (kind + message), which toolCall.ts turns into an isError result.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ContentBlock, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  toolDefinitions,
  type AskEnding,
  type AuditDecision,
  type ToolArgs,
  type ToolDefinitions,
  type ToolName,
  type ToolResult,
} from '@overlay-companion/protocol';
import type { AuditLog } from '../audit/auditLog.js';
import type { Decider } from '../audit/decider.js';
import type { McpPrincipal } from '../auth/apiTokens.js';
import type { SessionRateLimiter } from '../limits/rateLimit.js';
import type { EventSubscriptions } from './events/subscriptions.js';
import type { DesktopPlane } from './desktopPlanes.js';
import type { RemoteControlRoute } from './relayCall.js';
import type { SessionDesktop } from './sessionDesktop.js';
import type { ScreenshotFeed } from './screenshots/feed.js';

/** What one MCP session owns. */
export interface SessionState {
  id: string;
  server: McpServer;
  /** The token (and so the person) this session acts for. */
  principal: McpPrincipal;
  /** Which desktop it works on, and whether its AI may act there. */
  desktop: SessionDesktop;
  /** The MCP client's name from initialize (for the audit log). */
  clientName(): string | null;
  /** Epoch ms the session began, and of its latest tool call (the person's AI-clients list). */
  connectedAt: number;
  lastCallAt: number | null;
  /** The tool of the latest call (the fleet page's "what each last did"). */
  lastTool?: string;
  /** The session's own bucket; the token's and the person's are checked too (limits/rateLimit.ts). */
  rateLimiter: SessionRateLimiter;
  events: EventSubscriptions;
  screenshots: ScreenshotFeed;
  /** Resource URIs the client subscribed to (resources/subscribe). */
  resourceSubscriptions: Set<string>;
}

/** What the policy and the person did with one call, filled in as it runs (for the audit log). */
export interface CallNote {
  decision: AuditDecision | null;
  /** Who approved it, when someone had to. */
  approvedBy: string | null;
  /** Who or what decided it, where that is known on the way (audit/decider.ts derives the rest). */
  decidedBy?: Decider;
  /** The standing permission that allowed it without asking (for the audit's detail line). */
  standing?: string;
  /**
   * How the question to the person ended, when it ended the call and no window reported it
   * (tool_error.asked does): the AI's mode raise, asked by the bridge (tools/mode.ts).
   */
  asked?: AskEnding;
}

export interface ToolContext {
  /** The plane of the desktop this call works on (its person in charge is checked). */
  plane: DesktopPlane;
  session: SessionState;
  /** The policy's decision for this call (decideCall), made before the handler runs. */
  decision: 'allow' | 'confirm';
  /** `decision` is allow because of this standing permission (the viewer checks it too). */
  standingId?: string;
  note: CallNote;
  /** Aborts when the MCP client cancels this request. */
  signal: AbortSignal;
  requestId: RequestId;
  /** In a site of several bridges: control windows on the other bridges. */
  remote?: RemoteControlRoute | undefined;
  /** The audit log, for what a tool hears from the person (request_annotation's answer). */
  audit: Pick<AuditLog, 'record'>;
}

export interface ToolReply<N extends ToolName = ToolName> {
  structured: ToolResult<N>;
  /** One short sentence for clients that show text only; default: the definition's summary. */
  text?: string;
  /** Content before the text, e.g. the screenshot image. */
  content?: ContentBlock[];
}

export interface BridgeTool<N extends ToolName = ToolName> {
  name: N;
  definition: ToolDefinitions[N];
  handle(args: ToolArgs<N>, ctx: ToolContext): Promise<ToolReply<N>>;
}

/** A tool's bridge handler, tied by name to its definition (the protocol's defineTool). */
export function implementTool<N extends ToolName>(
  name: N,
  handle: (args: ToolArgs<N>, ctx: ToolContext) => Promise<ToolReply<N>>,
): BridgeTool<N> {
  return { name, definition: toolDefinitions[name], handle };
}
