// The MCP control plane, assembled: mode state, viewer hub and socket, tickets, MCP sessions
// with their tools and resources, and the Host/Origin guard. `createControlPlane` returns what
// startBridge takes (`mounts`, `upgrades`) plus `bind()` (called once the real port is known,
// which the Host check needs) and `close()`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Mode } from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { BoundAddress } from '../auth/hostGuard.js';
import { openableHost } from '../auth/loopback.js';
import type { McpAuthenticator } from '../auth/mcpAuth.js';
import { TICKET_TTL_MS, ViewerTickets } from '../auth/viewerTickets.js';
import type { UpgradeHandler } from '../http/upgradeRouter.js';
import { ModeState } from '../policy/modeState.js';
import { RATE_LIMITS, SessionRateLimiter, type BucketLimit } from '../policy/rateLimit.js';
import { VIEWER_SOCKET_PATH, mountTicketRoute } from '../relay/ticketRoute.js';
import { ViewerHub } from '../relay/viewerHub.js';
import { createViewerEndpoint } from '../relay/viewerSocket.js';
import { BRIDGE_VERSION } from '../version.js';
import { EventSubscriptions, MAX_BUFFERED_EVENTS } from './events/subscriptions.js';
import { UpdateNotifier, eventsUri, registerResources } from './resources.js';
import { ScreenshotFeed } from './screenshots/feed.js';
import { McpSessions, type SessionHandle } from './sessions.js';
import { runToolCall } from './toolCall.js';
import { buildToolList } from './toolList.js';
import { bridgeTools, findTool } from './tools/index.js';
import type { PlaneServices, SessionState } from './toolkit.js';

// Registered with CallToolRequestSchema, a non-object `arguments` fails the SDK's request parse
// as -32603 Internal error. With `arguments` loosened here, the SDK's own tools/call check
// answers -32602 Invalid params ("Invalid tools/call request: …") instead, which is the right
// JSON-RPC code; every object-shaped argument still reaches our zod schemas, which answer
// invalid_parameters naming the field.
const LooseCallToolRequestSchema = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() }),
});

export interface ControlPlaneOptions {
  auth: McpAuthenticator;
  logger: Logger;
  /** Starting mode (`serve --mode`); assist by default. */
  initialMode?: Mode | undefined;
  /** OC_PUBLIC_URL: the address people use, allowed as Host and shown in guidance. */
  publicUrl?: string | undefined;
  ticketTtlMs?: number;
  rateLimits?: { all: BucketLimit; input: BucketLimit };
  sessionIdleMs?: number;
}

export interface ControlPlane {
  mounts: ReadonlyArray<(app: Hono) => void>;
  upgrades: Readonly<Record<string, UpgradeHandler>>;
  /** Tells the plane where the bridge listens (after listen, so port 0 is resolved). */
  bind(address: BoundAddress): void;
  hub: ViewerHub;
  mode: ModeState;
  tickets: ViewerTickets;
  sessions: McpSessions;
  /** OC_PUBLIC_URL when set. */
  publicUrl: string | undefined;
  close(): Promise<void>;
}

const INSTRUCTIONS =
  "Overlay Companion shows you a person's remote desktop and lets you point things out with overlays and, when the person's mode allows, click and type. Start with get_display_info (coordinates are desktop pixels) and take_screenshot. Input tools (click_at, type_text, press_key, scroll, drag, mouse_move, clipboard) follow the person's mode: denied in passive, asked each time in assist. Errors start with their kind (invalid_parameters, permission_denied, rate_limited, viewer_unavailable, timeout, cancelled, system_error) and say what to do next.";

export function createControlPlane(options: ControlPlaneOptions): ControlPlane {
  const logger = options.logger;
  let bound: BoundAddress | undefined;
  const mode = new ModeState(options.initialMode ?? 'assist');
  const viewerUrl = (): string => {
    if (options.publicUrl !== undefined && options.publicUrl !== '') return options.publicUrl;
    if (bound === undefined) return 'the bridge URL';
    return `http://${openableHost(bound.host)}:${bound.port}/`;
  };
  const hub = new ViewerHub({ mode, logger: logger.child({ part: 'viewers' }), viewerUrl });
  const tickets = new ViewerTickets(options.ticketTtlMs ?? TICKET_TTL_MS);
  const endpoint = createViewerEndpoint({
    hub,
    tickets,
    logger: logger.child({ part: 'viewer-socket' }),
  });

  let stopController = new AbortController();
  const plane: PlaneServices = { hub, mode, stopSignal: () => stopController.signal };
  const live = new Set<SessionState>();
  // Viewers stream only the event types some live subscription collects (the union over every
  // session); recomputed whenever a subscription or a session comes or goes.
  const updateEventInterest = (): void => {
    hub.setEventInterest([...live].flatMap((session) => [...session.events.types()]));
  };
  hub.listen({
    event: (event) => {
      for (const session of live) session.events.push(event);
    },
    stop: () => {
      stopController.abort();
      stopController = new AbortController();
    },
  });

  const toolList = buildToolList(bridgeTools);
  const createSession = ({ sessionId }: { sessionId: string }): SessionHandle => {
    const server = new McpServer(
      { name: 'overlay-companion', version: BRIDGE_VERSION },
      { capabilities: { resources: { subscribe: true } }, instructions: INSTRUCTIONS },
    );
    // Tools are served by our own handlers, not McpServer.registerTool: the SDK would answer
    // invalid arguments itself, without our error kinds and structured error.
    server.server.registerCapabilities({ tools: { listChanged: false } });
    const sessionLogger = logger.child({ sessionId });
    const notifier = new UpdateNotifier(() => state, sessionLogger);
    const state: SessionState = {
      id: sessionId,
      server,
      rateLimiter: new SessionRateLimiter(options.rateLimits ?? RATE_LIMITS),
      events: new EventSubscriptions(
        (id) => notifier.notify(eventsUri(id)),
        MAX_BUFFERED_EVENTS,
        updateEventInterest,
      ),
      screenshots: new ScreenshotFeed(hub, (uri) => notifier.notify(uri), sessionLogger),
      resourceSubscriptions: new Set(),
    };
    registerResources(server, () => state);
    server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList }));
    server.server.setRequestHandler(LooseCallToolRequestSchema, (request, extra) =>
      runToolCall(
        findTool(request.params.name),
        request.params.name,
        request.params.arguments,
        { plane, session: state, signal: extra.signal, requestId: extra.requestId },
        sessionLogger,
      ),
    );
    live.add(state);
    return {
      server,
      dispose: () => {
        live.delete(state);
        notifier.close();
        state.screenshots.close();
        state.events.clear();
        // Also when it held no subscriptions: cheap, and the union must not outlive a session.
        updateEventInterest();
      },
    };
  };

  const sessions = new McpSessions({
    auth: options.auth,
    createSession,
    logger: logger.child({ part: 'mcp' }),
    ...(options.sessionIdleMs === undefined ? {} : { idleMs: options.sessionIdleMs }),
  });

  // Host and Origin are checked for every request and upgrade by the server (startBridge), so
  // /mcp, /api and /ws/viewer need no guard of their own here.
  const mount = (app: Hono): void => {
    sessions.mount(app);
    mountTicketRoute(app, tickets, () => bound);
  };

  return {
    mounts: [mount],
    upgrades: { [VIEWER_SOCKET_PATH]: endpoint.handleUpgrade },
    bind: (address) => {
      bound = address;
    },
    hub,
    mode,
    tickets,
    sessions,
    publicUrl: options.publicUrl === '' ? undefined : options.publicUrl,
    close: async () => {
      endpoint.close();
      await sessions.close();
    },
  };
}
