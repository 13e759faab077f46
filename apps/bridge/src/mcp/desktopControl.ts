// The desktop control, the bridge's side of driving desktops (the browser's side is the viewer's
// ControlPlane in apps/web), assembled: one plane per desktop (mode, the in-charge person's
// permissions, viewer windows, Stop — desktopPlanes.ts), MCP sessions bound to API tokens (each
// session acts for its token's person on a desktop the token may use — sessionDesktop.ts), the
// viewer and overlay sockets, and the audit of what planes do. `createDesktopControl` returns
// what startBridge takes (`mounts`, `upgrades`) plus `bind()` (called once the real port is
// known) and `close()`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  OVERLAYS_SOCKET_PATH,
  VIEWER_SOCKET_PATH,
  defaultPermissions,
  type Mode,
} from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Access } from '../auth/access.js';
import type { BoundAddress } from '../perimeter/hostGuard.js';
import { openableHost } from '../auth/loopback.js';
import type { UpgradeHandler } from '../http/upgradeRouter.js';
import type { BridgeEnv } from '../http/env.js';
import type { BridgeMetrics } from '../metrics/bridgeMetrics.js';
import {
  RATE_LIMITS,
  SHARED_RATE_LIMITS,
  SessionRateLimiter,
  SharedRateLimits,
  type BucketLimit,
  type SharedLimits,
} from '../limits/rateLimit.js';
import { createViewerEndpoint } from '../relay/viewerSocket.js';
import { createOverlayEndpoint } from '../relay/overlaySocket.js';
import { BRIDGE_VERSION } from '../version.js';
import { EventSubscriptions, MAX_BUFFERED_EVENTS } from './events/subscriptions.js';
import { DesktopPlanes, type DesktopPlane, type DesktopPlanesOptions } from './desktopPlanes.js';
import { SessionDesktop } from './sessionDesktop.js';
import { DesktopDirectory } from '../desktops/desktopDirectory.js';
import type { HeadlessLauncher } from '../relay/noViewer.js';
import { ViewerHub } from '../relay/viewerHub.js';
import { ModeState } from '../policy/modeState.js';
import { observePlanes } from './planeAudit.js';
import { UpdateNotifier, eventsUri, registerResources } from './resources.js';
import { ScreenshotFeed } from './screenshots/feed.js';
import { McpSessions, type SessionHandle } from './sessions.js';
import { runToolCall } from './toolCall.js';
import { buildToolList } from './toolList.js';
import { bridgeTools, findTool } from './tools/index.js';
import type { SessionState } from './toolkit.js';
import { readDecision } from './planeDecision.js';
import type { RemoteControlRoute } from './relayCall.js';

// Registered with CallToolRequestSchema, a non-object `arguments` fails the SDK's request parse
// as -32603 Internal error. With `arguments` loosened here, the SDK's own tools/call check
// answers -32602 Invalid params ("Invalid tools/call request: …") instead, which is the right
// JSON-RPC code; every object-shaped argument still reaches our zod schemas, which answer
// invalid_parameters naming the field.
const LooseCallToolRequestSchema = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() }),
});

export interface DesktopControlOptions {
  access: Access;
  logger: Logger;
  /** Starting mode of every person (`serve --mode`); assist by default. */
  initialMode?: Mode | undefined;
  /** OC_PUBLIC_URL: the address people use, shown in guidance. */
  publicUrl?: string | undefined;
  /** Per-session limits (RATE_LIMITS by default). */
  rateLimits?: { all: BucketLimit; input: BucketLimit };
  /** Limits shared by a token's sessions and a person's tokens (SHARED_RATE_LIMITS by default). */
  sharedRateLimits?: SharedLimits;
  sessionIdleMs?: number;
  /** The bridge's /metrics series: tool calls, viewers, approvals waiting, MCP sessions. */
  metrics?: BridgeMetrics | undefined;
  /** The desktop records (made here from the store when not given). */
  directory?: DesktopDirectory | undefined;
  /**
   * What each desktop's plane tells, and asks, beyond the desktop control: the recordings' event
   * track and indicator (bridge.ts wires them to recordings/, which imports mcp/, not back).
   */
  planeHooks?: Pick<
    DesktopPlanesOptions,
    'overlaysChanged' | 'takeOverChanged' | 'recording' | 'callReceipts' | 'desktopSize'
  >;
}

export interface DesktopControl {
  mounts: ReadonlyArray<(app: Hono<BridgeEnv>) => void>;
  upgrades: Readonly<Record<string, UpgradeHandler>>;
  /** Tells the plane where the bridge listens (after listen, so port 0 is resolved). */
  bind(address: BoundAddress): void;
  /**
   * serve --headless-viewer: how long until its viewer is back while it is being relaunched, so
   * a call that finds no window is told to retry then rather than to open a browser.
   */
  expectHeadless(launcher: HeadlessLauncher): void;
  planes: DesktopPlanes;
  directory: DesktopDirectory;
  /** The plane of a person's default desktop (the one their windows open without a choice). */
  defaultPlaneFor(personId: string): Promise<DesktopPlane | undefined>;
  sessions: McpSessions;
  /** OC_PUBLIC_URL when set. */
  publicUrl: string | undefined;
  /**
   * In a site of several bridges: where calls go whose control window is on another bridge
   * (site/remoteControl.ts); undefined: this bridge alone.
   */
  route(remote: RemoteControlRoute | undefined): void;
  /** The budgets shared by a token's sessions and a person's tokens (a site shares them further). */
  rateLimits: SharedRateLimits;
  close(): Promise<void>;
}

const INSTRUCTIONS =
  "Overlay Companion shows you a person's remote desktop and lets you point things out with overlays and, when the person's mode and permissions allow, click and type. Start with get_display_info (coordinates are desktop pixels) and take_screenshot. Input tools (click_at, type_text, press_key, scroll, drag, mouse_move, clipboard) follow the person's mode: denied in passive, asked each time in assist. Errors start with their kind (invalid_parameters, permission_denied, rate_limited, viewer_unavailable, timeout, cancelled, system_error) and say what to do next.";

const sum = <T>(items: readonly T[], count: (item: T) => number): number =>
  items.reduce((total, item) => total + count(item), 0);

export function createDesktopControl(options: DesktopControlOptions): DesktopControl {
  const { logger, access } = options;
  let bound: BoundAddress | undefined;
  let headlessLauncher: HeadlessLauncher | undefined;
  const viewerUrl = (): string => {
    if (options.publicUrl !== undefined && options.publicUrl !== '') return options.publicUrl;
    if (bound === undefined) return 'the bridge URL';
    return `http://${openableHost(bound.host)}:${bound.port}/`;
  };
  const directory =
    options.directory ??
    new DesktopDirectory({ store: access.store, logger: logger.child({ part: 'desktops' }) });
  const planes = new DesktopPlanes({
    store: access.store,
    directory,
    logger,
    initialMode: options.initialMode ?? 'assist',
    viewerUrl,
    headlessLauncher: () => headlessLauncher,
    observer: observePlanes(access),
    ...options.planeHooks,
  });
  // What a session's background screenshots ask while it has no desktop: no window, no capture.
  const idleHub = new ViewerHub({
    mode: new ModeState('passive'),
    permissions: defaultPermissions,
    inCharge: () => '',
    logger,
    viewerUrl,
  });
  const endpoint = createViewerEndpoint({
    planes,
    directory,
    access,
    logger: logger.child({ part: 'viewer-socket' }),
  });
  const overlayFeed = createOverlayEndpoint({
    planes,
    directory,
    access,
    logger: logger.child({ part: 'overlay-feed' }),
  });
  const limits = new SharedRateLimits(options.sharedRateLimits ?? SHARED_RATE_LIMITS);
  let remote: RemoteControlRoute | undefined;
  const toolList = buildToolList(bridgeTools);

  const createSession: ConstructorParameters<typeof McpSessions>[0]['createSession'] = async ({
    sessionId,
    principal,
  }): Promise<SessionHandle> => {
    const fallbackPermissions = await access.store.permissions.get(principal.personId);
    const server = new McpServer(
      { name: 'overlay-companion', version: BRIDGE_VERSION },
      { capabilities: { resources: { subscribe: true } }, instructions: INSTRUCTIONS },
    );
    // Tools are served by our own handlers, not McpServer.registerTool: the SDK would answer
    // invalid arguments itself, without our error kinds and structured error.
    server.server.registerCapabilities({ tools: { listChanged: false } });
    const sessionLogger = logger.child({ sessionId, personId: principal.personId });
    const notifier = new UpdateNotifier(() => state, sessionLogger);
    const desktop = new SessionDesktop({ access, directory, planes }, principal, {
      join: (plane) => {
        plane.sessions.add(state);
        plane.aiClientsChanged();
        plane.updateEventInterest();
      },
      leave: (plane) => {
        plane.sessions.delete(state);
        plane.aiClientsChanged();
        // Also when it held no subscriptions: cheap, and the union must not outlive a session.
        plane.updateEventInterest();
      },
    });
    const state: SessionState = {
      id: sessionId,
      server,
      principal,
      desktop,
      clientName: () => server.server.getClientVersion()?.name?.slice(0, 100) ?? null,
      connectedAt: Date.now(),
      lastCallAt: null,
      rateLimiter: new SessionRateLimiter(options.rateLimits ?? RATE_LIMITS),
      events: new EventSubscriptions(
        (id) => notifier.notify(eventsUri(id)),
        MAX_BUFFERED_EVENTS,
        () => desktop.current?.updateEventInterest(),
      ),
      screenshots: new ScreenshotFeed(
        () => ({ hub: desktop.current?.hub ?? idleHub, plane: desktop.current, remote }),
        (uri) => notifier.notify(uri),
        sessionLogger,
        () => readDecision(desktop.current, 'take_screenshot'),
        (message) =>
          access.audit.record({
            at: Date.now(),
            kind: 'tool_call',
            actor: 'ai',
            personId: principal.personId,
            personName: principal.personName,
            tokenId: principal.tokenId,
            tokenName: principal.tokenName,
            clientName: state.clientName(),
            tool: 'take_screenshot',
            summary: 'background capture (set_screenshot_frequency)',
            decision: 'deny',
            outcome: 'permission_denied',
            detail:
              `${desktop.current === undefined ? '' : `desktop ${desktop.current.desktopName} · `}${message}`.slice(
                0,
                1000,
              ),
          }),
      ),
      resourceSubscriptions: new Set(),
    };
    registerResources(server, () => state);
    server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList }));
    server.server.setRequestHandler(LooseCallToolRequestSchema, (request, extra) =>
      runToolCall(
        findTool(request.params.name),
        request.params.name,
        request.params.arguments,
        {
          session: state,
          signal: extra.signal,
          requestId: extra.requestId,
          fallbackPermissions,
          remote,
        },
        { limits, audit: access.audit, logger: sessionLogger },
      ),
    );
    // The session settles on its default desktop at once, so the person's windows list this AI
    // client from the start (a person without any desktop gets a session that says so per call).
    void desktop.forCall('list_desktops', undefined).then(
      (plane) => desktop.select(plane),
      () => undefined,
    );
    // initialize is answered after this: the client's name is known once it is.
    server.server.oninitialized = () => desktop.current?.aiClientsChanged();
    return {
      server,
      dispose: () => {
        desktop.close();
        notifier.close();
        state.screenshots.close();
        state.events.clear();
      },
    };
  };

  const sessions = new McpSessions({
    auth: access.tokens,
    createSession,
    logger: logger.child({ part: 'mcp' }),
    ...(options.sessionIdleMs === undefined ? {} : { idleMs: options.sessionIdleMs }),
    metrics: options.metrics,
  });
  options.metrics?.observe({
    viewers: async () => sum(await planes.loaded(), (plane) => plane.hub.size),
    pendingApprovals: async () =>
      sum(await planes.loaded(), (plane) => plane.hub.approvalsWaitingCount),
    mcpSessions: () => sessions.size,
  });

  return {
    mounts: [(app) => sessions.mount(app)],
    upgrades: {
      [VIEWER_SOCKET_PATH]: endpoint.handleUpgrade,
      [OVERLAYS_SOCKET_PATH]: overlayFeed.handleUpgrade,
    },
    bind: (address) => {
      bound = address;
    },
    expectHeadless: (launcher) => {
      headlessLauncher = launcher;
    },
    planes,
    directory,
    defaultPlaneFor: async (personId) => {
      const person = await access.store.people.byId(personId);
      const found = person === undefined ? undefined : await directory.defaultFor(person);
      return found === undefined ? undefined : planes.get(found.entry.record.id);
    },
    sessions,
    publicUrl: options.publicUrl === '' ? undefined : options.publicUrl,
    route: (route) => {
      remote = route;
    },
    rateLimits: limits,
    close: async () => {
      endpoint.close();
      overlayFeed.close();
      await sessions.close();
      await planes.closeAll();
    },
  };
}
