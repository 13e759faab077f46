// Assembles the bridge, in two steps; this file is the table of contents, the parts are in
// assembly/. startBridge: the Hono app (app.ts) on a node http server, WebSocket upgrades routed
// by path (`/tunnel` here; the desktop control (mcp/desktopControl.ts) adds `/ws/viewer` and
// `/ws/overlays` through `upgrades`) after the Host/Origin check (perimeter/hostGuard.ts), and a
// close() that ends every tunnel and connection it owns. startWithDesktopControl: startBridge plus
// everything behind sign-in, sharing one Access (store, sessions, tokens, tickets, audit):
//   the desktops' records, targets and what a change to one does (assembly/desktopRecords.ts);
//   session recordings and what feeds them (assembly/openRecordings.ts);
//   the desktop control (/mcp, /ws/viewer, /ws/overlays, one plane per desktop) with its hooks;
//   the site it joins (OC_NATS_URL) and the fleet feed (/ws/fleet);
//   what a saved layout does to desktops' windows and sizes (assembly/layoutEffects.ts);
//   the /api, file and recording routes (assembly/signedInRoutes.ts).
// Binds the Host check to the real port once listening, and closes the plane (sessions, viewer
// sockets) before the bridge. Used by `serve` (cli/serve.ts) and by the tests.
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { FLEET_SOCKET_PATH, TUNNEL_SOCKET_PATH } from '@overlay-companion/protocol';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import type { ApiDeps } from './api/index.js';
import {
  desktopDirectory,
  desktopsChangedAtOnce,
  tunnelDesktops,
  type DesktopSetup,
} from './assembly/desktopRecords.js';
import {
  layoutDesktopSize,
  layoutSavedEffects,
  liveDesktopSize,
} from './assembly/layoutEffects.js';
import { feedRecordings, openRecordings, type RecordingSetup } from './assembly/openRecordings.js';
import { closeOnce, listenOn } from './assembly/listen.js';
import { planeHooks } from './assembly/planeHooks.js';
import { signedInRoutes, type FileSetup } from './assembly/signedInRoutes.js';
import type { Access } from './auth/access.js';
import { openableHost } from './auth/loopback.js';
import type { OidcSignIn } from './auth/oidc.js';
import { parseBridgeConfig, type BridgeConfig, type BridgeConfigInput } from './config.js';
import { DesktopSecretBox } from './desktops/credentials.js';
import type { DesktopSizeProvider } from './desktops/desktopSize.js';
import { Readiness } from './health/readiness.js';
import type { BridgeEnv } from './http/env.js';
import { UpgradeRouter, type UpgradeHandler } from './http/upgradeRouter.js';
import { silentLogger } from './logger.js';
import {
  createDesktopControl,
  type DesktopControl,
  type DesktopControlOptions,
} from './mcp/desktopControl.js';
import type { BridgeMetrics } from './metrics/bridgeMetrics.js';
import {
  hostOriginGuard,
  upgradeHostOriginGuard,
  type BoundAddress,
  type HostPolicyOptions,
} from './perimeter/hostGuard.js';
import { createFleetEndpoint } from './fleet/fleetSocket.js';
import { requestDeadlineButUploads } from './files/requestDeadline.js';
import type { Recordings } from './recordings/recordingLifecycle.js';
import { CallReceipts } from './tunnel/callReceipts.js';
import type { ConnectionObserver } from './tunnel/desktopConnections.js';
import type { TunnelRegistry } from './tunnel/registry.js';
import { TunnelEndpoint, type TunnelDesktops } from './tunnel/tunnelEndpoint.js';
import { joinSite, type Site } from './site/joinSite.js';
import { GatewayLeases } from './site/gatewayLeases.js';
import type { GatewayPlaces } from './tunnel/gatewayPlaces.js';
import type { SiteConfig } from './site/siteConfig.js';

export interface BridgeExtras {
  /** Who may reach the bridge (sign-in, tickets, tokens): every route and socket needs it. */
  access: Access;
  logger?: Logger;
  /** Route groups mounted before the viewer (see createApp). */
  mounts?: ReadonlyArray<(app: Hono<BridgeEnv>) => void>;
  /** More WebSocket endpoints by path, e.g. `{ '/ws/viewer': handler }`. */
  upgrades?: Readonly<Record<string, UpgradeHandler>>;
  /** OC_PUBLIC_URL: one more Host/Origin the bridge answers to (behind a proxy). */
  publicUrl?: string | undefined;
  /** The /metrics series; the tunnel counts frames and bytes into it. */
  metrics?: BridgeMetrics | undefined;
  /** OC_METRICS_TOKEN: /metrics needs it as a bearer token. */
  metricsToken?: string | undefined;
  /** OC_METRICS_OPEN_LOOPBACK: without a token, /metrics answers direct loopback callers. */
  metricsOpenLoopback?: boolean | undefined;
  /**
   * The desktop size a person wants (e.g. the bounding box of their saved monitor layout),
   * used when their desktop connection opens; the config's desktopSize wins over it.
   */
  desiredDesktopSize?: DesktopSizeProvider | undefined;
  /** The desktop records tunnels may reach (the desktop control's); absent: the config's one. */
  tunnelDesktops?: TunnelDesktops | undefined;
  /** For /readyz: whether the desktop itself answers (serve's local desktop), within the time. */
  desktopProbe?: ((timeoutMs: number) => Promise<boolean>) | undefined;
  /** Told when each desktop's connection opens and ends (the recorder). */
  connectionObserver?: ConnectionObserver | undefined;
  /** Where the gateway pool's connections live, for the whole site (site/gatewayLeases.ts). */
  gatewayPlaces?: GatewayPlaces | undefined;
  /** The site's bus, for /readyz (NATS away: not ready). */
  siteBus?: { awaySince(): number | undefined } | undefined;
  /** Receipt tokens of the calls this bridge relays, answered by its tunnels (callReceipts.ts). */
  callReceipts?: CallReceipts | undefined;
}

export interface RunningBridge {
  /** Base URL to open, e.g. `http://127.0.0.1:8080/`. */
  url: string;
  host: string;
  port: number;
  config: BridgeConfig;
  tunnels: TunnelRegistry;
  close(): Promise<void>;
}

export async function startBridge(
  input: BridgeConfigInput,
  extras: BridgeExtras,
): Promise<RunningBridge> {
  const config = parseBridgeConfig(input);
  const logger = extras.logger ?? silentLogger();
  const tunnel = new TunnelEndpoint({
    target: { guacd: config.guacd, connection: config.connection },
    limits: config.tunnel,
    logger: logger.child({ part: 'tunnel' }),
    access: extras.access,
    metrics: extras.metrics,
    desktopSize: config.desktopSize,
    desiredDesktopSize: extras.desiredDesktopSize,
    desktops: extras.tunnelDesktops,
    connectionObserver: extras.connectionObserver,
    gatewayPlaces: extras.gatewayPlaces,
    callReceipts: extras.callReceipts,
  });
  extras.metrics?.observe({ tunnels: () => tunnel.registry.size });
  // Every request and every WebSocket upgrade — the viewer, /healthz, /tunnel, /mcp alike —
  // must name this bridge in Host and, when a browser sends one, Origin: a page on another
  // site (or a DNS-rebound name) must not read the desktop or drive it.
  const listening: { address?: BoundAddress } = {}; // known once listen() returns
  const hostPolicy: HostPolicyOptions = {
    bound: () => listening.address,
    publicUrl: extras.publicUrl,
  };
  // One check per request; only the refusal's shape depends on the path: MCP clients read
  // JSON-RPC errors on /mcp (exactly that path, as Hono's `use('/mcp')` matched it).
  const guard = (app: Hono<BridgeEnv>): void => {
    app.use('*', hostOriginGuard({ ...hostPolicy, jsonRpc: (path) => path === '/mcp' }));
  };
  const app = createApp({
    webRoot: config.webRoot,
    access: extras.access,
    logger,
    guard,
    https: extras.publicUrl?.toLowerCase().startsWith('https:') ?? false,
    mounts: extras.mounts ?? [],
    health: {
      readiness: new Readiness({
        guacd: config.guacd,
        store: extras.access.store,
        desktop: extras.desktopProbe,
        audit: () => extras.access.audit.state(),
        desktopLink: () => tunnel.registry.stalledSince(),
        gatewayPool: tunnel.gatewayPool,
        siteBus: extras.siteBus,
      }),
      metrics: extras.metrics,
      metricsToken: extras.metricsToken,
      metricsOpenLoopback: extras.metricsOpenLoopback,
    },
  });

  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  // Node's 5-minute bound on receiving a request, for every request but a file upload.
  requestDeadlineButUploads(server);
  const router = new UpgradeRouter(upgradeHostOriginGuard(hostPolicy)).add(
    TUNNEL_SOCKET_PATH,
    tunnel.handleUpgrade,
  );
  for (const [path, handler] of Object.entries(extras.upgrades ?? {})) router.add(path, handler);
  router.attach(server);

  const port = await listenOn(server, config.host, config.port);
  listening.address = { host: config.host, port };
  const url = `http://${openableHost(config.host)}:${port}/`;
  logger.info({ url }, 'bridge listening');

  const close = closeOnce(server, () => tunnel.close());

  return { url, host: config.host, port, config, tunnels: tunnel.registry, close };
}

export interface ControlledBridge extends RunningBridge {
  desktopControl: DesktopControl;
  /** The site this bridge joined (OC_NATS_URL), if any. */
  site: Site | undefined;
  access: Access;
  /** Session recordings (recordings/recordingLifecycle.ts). */
  recordings: Recordings;
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  mcpUrl: string;
}

export interface ControlledBridgeOptions
  extends
    Omit<DesktopControlOptions, 'logger' | 'recordings'>,
    Pick<ApiDeps, 'desktopSize' | 'layoutSaved' | 'desktopsChanged'>,
    DesktopSetup {
  oidc?: OidcSignIn | undefined;
  /**
   * Seals desktop credentials; by default opened from OC_SECRET_KEY or the data dir's secret.key
   * (a StartupError when OC_SECRET_KEY is too short).
   */
  secretBox?: DesktopSecretBox | undefined;
  /** Session recordings (assembly/openRecordings.ts). */
  recording?: RecordingSetup | undefined;
  /**
   * OC_NATS_URL: the site this bridge is one of (site/joinSite.ts). Without it the bridge is a
   * site of its own, in this process alone.
   */
  site?: { config: SiteConfig; leaseTtlMs?: number | undefined } | undefined;
  /** File transfer (assembly/signedInRoutes.ts). */
  files?: FileSetup | undefined;
}

export async function startWithDesktopControl(
  input: BridgeConfigInput,
  options: ControlledBridgeOptions,
  extras: Omit<BridgeExtras, 'access'> = {},
): Promise<ControlledBridge> {
  const logger = extras.logger ?? silentLogger();
  const { oidc, secretBox: givenBox, desktopsChanged, ...planeOptions } = options;
  const secretBox =
    givenBox ??
    (await DesktopSecretBox.open({
      dataDir: parseBridgeConfig(input).dataDir,
      envKey: process.env.OC_SECRET_KEY,
    }));
  const access = options.access;
  const config = parseBridgeConfig(input);
  const directory = desktopDirectory({
    access,
    logger,
    secretBox,
    setup: options,
  });
  const {
    cliDesktop: _cli,
    perPersonLocal: _perPerson,
    gateway: _gateway,
    guacdForRecords: _guacd,
    localDesktops,
    cliConnection: _cliConnection,
    recording,
    site: siteOptions,
    files,
    ...controlOptions
  } = planeOptions;
  // guacd makes each RDP desktop's drive folder, inside this root (files/rdpDrive.ts).
  if (files?.rdpDriveRoot !== undefined)
    await mkdir(files.rdpDriveRoot, { recursive: true, mode: 0o700 });
  const recordings = await openRecordings({
    access,
    directory,
    dataDir: config.dataDir,
    logger,
    setup: recording,
  });
  let bridge: RunningBridge | undefined;
  const tunnels = (): TunnelRegistry | undefined => bridge?.tunnels;
  // An input call settles as soon as this bridge's tunnel sees its receipt delivered.
  const callReceipts = new CallReceipts();
  const plane = createDesktopControl({
    ...controlOptions,
    directory,
    logger,
    planeHooks: planeHooks({ callReceipts, recordings, tunnels }),
  });
  let site: Site | undefined;
  try {
    site =
      siteOptions === undefined
        ? undefined
        : await joinSite({
            config: siteOptions.config,
            leaseTtlMs: siteOptions.leaseTtlMs,
            access,
            control: plane,
            logger,
          });
  } catch (err) {
    await plane.close();
    await recordings.close();
    throw err;
  }
  // A signed-in person's desktops at a glance (/ws/fleet), read off the desktop control's planes.
  const fleetFeed = createFleetEndpoint({
    planes: plane.planes,
    directory,
    access,
    logger: logger.child({ part: 'fleet-feed' }),
  });
  const untap = feedRecordings(recordings, access, plane.planes);
  // The command line's desktop is made now when an admin exists (else once setup made one), so
  // /desktops lists it from the start.
  await directory.cliDesktopId().catch((err: unknown) => {
    logger.warn({ err }, 'the command line desktop could not be recorded yet');
  });
  const routes = signedInRoutes({
    api: {
      access,
      planes: plane.planes,
      endMcpSessions: (match, reason) =>
        site === undefined
          ? plane.sessions.endWhere(match, reason)
          : site.endMcpSessions(match, reason),
      oidc,
      logger: logger.child({ part: 'api' }),
      desktopSize: options.desktopSize ?? liveDesktopSize({ access, directory, tunnels }),
      layoutSaved:
        options.layoutSaved ??
        layoutSavedEffects({
          access,
          directory,
          tunnels,
          planes: plane.planes,
          recordings,
          logger,
        }),
      secretBox,
      desktopsChanged: desktopsChangedAtOnce({
        planes: plane.planes,
        localDesktops,
        then: desktopsChanged,
      }),
      directory,
    },
    directory,
    localDesktops,
    files,
    recordings,
    logger,
  });
  try {
    bridge = await startBridge(input, {
      ...extras,
      ...(site === undefined || input.tunnel?.gatewayPool === undefined
        ? {}
        : { gatewayPlaces: new GatewayLeases(site.bus, logger) }),
      siteBus: site?.bus,
      access,
      publicUrl: extras.publicUrl ?? options.publicUrl,
      logger,
      mounts: [...(extras.mounts ?? []), ...plane.mounts, ...routes],
      upgrades: {
        ...extras.upgrades,
        ...plane.upgrades,
        [FLEET_SOCKET_PATH]: fleetFeed.handleUpgrade,
      },
      tunnelDesktops: tunnelDesktops({
        access,
        directory,
        logger,
        secretBox,
        setup: options,
        rdpDriveRoot: files?.rdpDriveRoot,
        cliTarget: { guacd: config.guacd, connection: config.connection },
      }),
      callReceipts,
      connectionObserver: recordings,
      desiredDesktopSize: extras.desiredDesktopSize ?? layoutDesktopSize({ access, directory }),
    });
  } catch (err) {
    fleetFeed.close();
    await site?.close();
    await plane.close();
    await recordings.close();
    untap();
    throw err;
  }
  const running = bridge;
  plane.bind({ host: running.host, port: running.port });
  const close = async (): Promise<void> => {
    fleetFeed.close();
    // First: this bridge stops hearing the site and gives up its leases before it closes.
    await site?.close();
    await plane.close();
    await running.close();
    await recordings.close();
    untap();
    await localDesktops?.close();
  };
  return {
    ...running,
    desktopControl: plane,
    site,
    access,
    recordings,
    mcpUrl: new URL('/mcp', running.url).toString(),
    close,
  };
}
