// Assembles the bridge, in two steps. startBridge: the Hono app (app.ts) on a node http server,
// WebSocket upgrades routed by path (`/tunnel` here; the desktop control (mcp/desktopControl.ts) adds `/ws/viewer` and
// `/ws/overlays` through `upgrades`) after the Host/Origin check (perimeter/hostGuard.ts), and a
// close() that ends every tunnel and connection it owns. startWithDesktopControl: startBridge plus
// everything behind sign-in: the desktop control (/mcp, /ws/viewer, /ws/overlays, one plane per
// desktop) and the /api routes, sharing one Access (store, sessions, tokens, tickets, audit), and
// the desktops: their records (DesktopDirectory; the command line's desktop reaches the
// configured connection, every other record its own target — tunnel/desktopTargets.ts) and what
// a change to one does at once (planes reload, a removed local desktop stops). An owner's saved
// layout is the map and size of the desktops they own: it goes to those desktops' windows
// (layout_changed), sizes them when saved (unless the operator or the record fixed the size) and
// when their connection opens, and GET /api/layout shows the live desktop size. Binds the Host
// check to the real port once listening, and closes the plane (sessions, viewer sockets) before
// the bridge. Used by `serve` (cli/serve.ts) and by the tests.
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import {
  FLEET_SOCKET_PATH,
  layoutBounds,
  TUNNEL_SOCKET_PATH,
  type DesktopParams,
  type MonitorLayout,
} from '@overlay-companion/protocol';
import type { LocalDesktop } from '@overlay-companion/gateway';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import { mountApi, type ApiDeps } from './api/index.js';
import type { Access } from './auth/access.js';
import { openableHost } from './auth/loopback.js';
import type { OidcSignIn } from './auth/oidc.js';
import {
  parseBridgeConfig,
  type BridgeConfig,
  type BridgeConfigInput,
  type ConnectionConfig,
  type GuacdAddress,
} from './config.js';
import { DesktopSecretBox } from './desktops/credentials.js';
import { DesktopDirectory, type CliDesktop } from './desktops/desktopDirectory.js';
import type { DesktopSizeProvider } from './desktops/desktopSize.js';
import type { LocalDesktopPool } from './desktops/localDesktopPool.js';
import { StartupError } from './errors.js';
import { Readiness } from './health/readiness.js';
import type { BridgeEnv } from './http/env.js';
import { UpgradeRouter, type UpgradeHandler } from './http/upgradeRouter.js';
import { readLayout } from './layouts/storedLayouts.js';
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
import { rdpDriveParams } from './files/rdpDrive.js';
import { requestDeadlineButUploads } from './files/requestDeadline.js';
import { mountFileRoutes } from './files/routes.js';
import { TransferPolicies } from './files/transferPermission.js';
import { transferTargets } from './files/transferTargets.js';
import { recordingEventsOf } from './recordings/auditEvents.js';
import { Recordings, type RecordingsOptions } from './recordings/recordings.js';
import { mountRecordingRoutes } from './recordings/routes.js';
import type { S3Target } from './recordings/storage/s3Config.js';
import { S3Files } from './recordings/storage/s3Files.js';
import { CallReceipts } from './tunnel/callReceipts.js';
import type { ConnectionObserver } from './tunnel/desktopConnections.js';
import { desktopTargets, type DesktopTargetsOptions } from './tunnel/desktopTargets.js';
import type { TunnelRegistry } from './tunnel/registry.js';
import { TunnelEndpoint, type TunnelDesktops } from './tunnel/tunnelEndpoint.js';
import type { TunnelTarget } from './tunnel/tunnelSession.js';
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

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new StartupError(
          err.code === 'EADDRINUSE'
            ? `Port ${config.port} on ${config.host} is already in use. Pick another with --port (0 picks a free one).`
            : `The bridge could not listen on ${config.host}:${config.port}: ${err.message}`,
        ),
      ),
    );
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  listening.address = { host: config.host, port };
  const url = `http://${openableHost(config.host)}:${port}/`;
  logger.info({ url }, 'bridge listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await tunnel.close();
      server.closeAllConnections();
      await stopped;
    })();
    return closing;
  };

  return { url, host: config.host, port, config, tunnels: tunnel.registry, close };
}

/** Without serve's flags: one desktop named "Desktop" reaching the configured connection. */
const DEFAULT_CLI_DESKTOP: Omit<CliDesktop, 'seal'> & { password?: string } = {
  name: 'Desktop',
  kind: 'vnc',
  params: {},
};

export interface ControlledBridge extends RunningBridge {
  desktopControl: DesktopControl;
  /** The site this bridge joined (OC_NATS_URL), if any. */
  site: Site | undefined;
  access: Access;
  /** Session recordings (recordings/recordings.ts). */
  recordings: Recordings;
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  mcpUrl: string;
}

export interface ControlledBridgeOptions
  extends
    Omit<DesktopControlOptions, 'logger' | 'recordings'>,
    Pick<ApiDeps, 'desktopSize' | 'layoutSaved' | 'desktopsChanged'> {
  oidc?: OidcSignIn | undefined;
  /**
   * Seals desktop credentials; by default opened from OC_SECRET_KEY or the data dir's secret.key
   * (a StartupError when OC_SECRET_KEY is too short).
   */
  secretBox?: DesktopSecretBox | undefined;
  /** The desktop the command line names (default: "Desktop", the configured connection). */
  cliDesktop?: Omit<CliDesktop, 'seal'> & { password?: string | undefined };
  /** One local desktop per person (serve --local-desktops per-person). */
  perPersonLocal?: { params: DesktopParams } | undefined;
  /** Where `vnc` and `local` desktop records connect (the embedded gateway), if there is one. */
  gateway?: DesktopTargetsOptions['gateway'];
  /** Apache guacd for `guacd-*` records (serve --guacd). */
  guacdForRecords?: GuacdAddress | undefined;
  /** Local desktops started on demand (serve); without it `local` records cannot open. */
  localDesktops?: LocalDesktopPool | undefined;
  /**
   * The command line desktop's connection now, asked at each open (a supervised local desktop
   * moves when restarted; throws DesktopReachError while it is down); default: the config's.
   */
  cliConnection?: (() => ConnectionConfig) | undefined;
  /**
   * Session recordings: serve --record makes `on` the default; --recordings-s3 keeps them in an
   * S3 bucket (checked at start: a bucket that cannot be written fails the start); tests tune
   * the writer.
   */
  recording?:
    | (Partial<
        Pick<RecordingsOptions, 'recordByDefault' | 'writer' | 'dir' | 'retention' | 'diskSpace'>
      > & { s3?: S3Target | undefined })
    | undefined;
  /**
   * OC_NATS_URL: the site this bridge is one of (site/joinSite.ts). Without it the bridge is a
   * site of its own, in this process alone.
   */
  site?: { config: SiteConfig; leaseTtlMs?: number | undefined } | undefined;
  /** File transfer: tests lower the size limit and raise the space kept free. */
  files?:
    | {
        maxBytes?: number;
        reserveBytes?: number;
        /** A transfer with no byte moving for this long ends (files/transferIdle.ts). */
        idleMs?: number;
        /** Bytes the bridge lets into one RDP desktop's drive folder (files/rdpDrive.ts). */
        rdpDriveQuotaBytes?: number;
        /** OC_RDP_DRIVE_DIR: RDP desktops' drive folders (files/rdpDrive.ts); absent: none. */
        rdpDriveRoot?: string | undefined;
        /** The command line's local desktop as it runs now (serve's supervisor). */
        cliLocal?: (() => LocalDesktop | undefined) | undefined;
      }
    | undefined;
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
  const cli: Omit<CliDesktop, 'seal'> & { password?: string | undefined } =
    options.cliDesktop ?? DEFAULT_CLI_DESKTOP;
  const directory = new DesktopDirectory({
    store: access.store,
    logger: logger.child({ part: 'desktops' }),
    perPersonLocal: options.perPersonLocal,
    cliDesktop: {
      ...cli,
      seal: (id) =>
        cli.password === undefined || cli.password === ''
          ? null
          : secretBox.seal(id, { password: cli.password }),
    },
  });
  const {
    cliDesktop: _cli,
    perPersonLocal: _perPerson,
    gateway,
    guacdForRecords,
    localDesktops,
    cliConnection,
    recording,
    site: siteOptions,
    files,
    ...controlOptions
  } = planeOptions;
  // guacd makes each RDP desktop's drive folder, inside this root (files/rdpDrive.ts).
  if (files?.rdpDriveRoot !== undefined)
    await mkdir(files.rdpDriveRoot, { recursive: true, mode: 0o700 });
  const recordingsDir = recording?.dir ?? join(resolve(config.dataDir), 'recordings');
  const recordingsS3 =
    recording?.s3 === undefined
      ? undefined
      : await S3Files.connect(recording.s3, recordingsDir, logger.child({ part: 'recordings' }));
  const recordings = new Recordings({
    store: access.store,
    dir: recordingsDir,
    s3: recordingsS3,
    logger: logger.child({ part: 'recordings' }),
    recordByDefault: recording?.recordByDefault,
    writer: recording?.writer,
    retention: recording?.retention,
    diskSpace: recording?.diskSpace,
    // What retention deletes is audited like a deletion by a person.
    audit: (entry) => access.audit.record(entry),
    // The desktop's privacy masks are its owner's layout's, as its windows are shown them.
    masks: async (desktopId) => {
      const entry = await directory.get(desktopId);
      if (entry === undefined) return [];
      const saved = await readLayout(access.store, entry.record.ownerId, desktopId);
      return saved?.layout.masks ?? [];
    },
  });
  await recordings.recover().catch((err: unknown) => {
    logger.warn({ err }, 'recordings left open by an earlier run could not be closed');
  });
  // An input call settles as soon as this bridge's tunnel sees its receipt delivered.
  const callReceipts = new CallReceipts();
  const plane = createDesktopControl({
    ...controlOptions,
    directory,
    logger,
    planeHooks: {
      callReceipts,
      recording: (desktopId, viewer) => recordings.indicator(desktopId, viewer),
      overlaysChanged: (desktopId, change) => recordings.overlaysChanged(desktopId, change),
      // The size a tunnel in use shows: a plain draw_overlay is settled here with it
      // (relay/settledOverlays.ts). Called on calls, once the bridge below runs.
      desktopSize: (desktopId) =>
        bridge?.tunnels.inUse(desktopId) === true
          ? bridge.tunnels.desktopSize(desktopId)
          : undefined,
      takeOverChanged: (desktopId, on, by) =>
        recordings.event(desktopId, {
          kind: on ? 'takeover' : 'handback',
          ...(by === undefined ? {} : { by }),
        }),
    },
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
  // Every audited action of a desktop is an event of its recording (auditEvents.ts).
  const untap = access.audit.tap((entry, about) => {
    if (about.desktopId === undefined) return;
    for (const event of recordingEventsOf(entry, about.intent))
      recordings.event(about.desktopId, event);
  });
  // Every window of a desktop sees its recording indicator change at once.
  recordings.onChange((desktopId) => {
    void plane.planes.loaded().then((loaded) => {
      for (const p of loaded) if (p.desktopId === desktopId) p.hub.desktopChanged();
    });
  });
  // The command line's desktop is made now when an admin exists (else once setup made one), so
  // /desktops lists it from the start.
  await directory.cliDesktopId().catch((err: unknown) => {
    logger.warn({ err }, 'the command line desktop could not be recorded yet');
  });
  let bridge: RunningBridge | undefined;
  /** The command line's desktop reaches the configured target (serve prepared it). */
  const cliTarget: TunnelTarget = { guacd: config.guacd, connection: config.connection };
  const targets = desktopTargets({
    store: access.store,
    directory,
    logger,
    secretBox,
    gateway,
    guacd: guacdForRecords,
    localDesktops,
    rdpDrive:
      files?.rdpDriveRoot === undefined
        ? undefined
        : (desktopId) => rdpDriveParams(files.rdpDriveRoot ?? '', desktopId),
  });
  const tunnelDesktops: TunnelDesktops = {
    resolve: (personId, desktopId) => targets.resolve(personId, desktopId),
    target: async (desktopId) => {
      if (desktopId !== (await directory.cliDesktopId())) return targets.target(desktopId);
      return cliConnection === undefined
        ? cliTarget
        : { guacd: cliTarget.guacd, connection: cliConnection() };
    },
  };
  const desktopSize =
    options.desktopSize ??
    (async (personId: string, desktopId?: string) => {
      if (desktopId !== undefined) return bridge?.tunnels.desktopSize(desktopId) ?? null;
      const person = await access.store.people.byId(personId);
      const mine = person === undefined ? undefined : await directory.defaultFor(person);
      return mine === undefined
        ? null
        : (bridge?.tunnels.desktopSize(mine.entry.record.id) ?? null);
    });
  const layoutSaved =
    options.layoutSaved ??
    (async (personId: string, _saved: MonitorLayout | null, desktopId?: string) => {
      // A person's layout is the map of the desktops they own that have none of their own; a
      // desktop's own layout, of that desktop alone. Each follows what it now resolves to: its
      // windows are told, and it is sized to it.
      const affected = (await directory.list()).filter(
        (e) =>
          e.record.ownerId === personId && (desktopId === undefined || e.record.id === desktopId),
      );
      for (const entry of affected) {
        const layout = (await readLayout(access.store, personId, entry.record.id))?.layout ?? null;
        const desktopPlane = await plane.planes.get(entry.record.id);
        desktopPlane?.hub.setLayout(layout);
        recordings.setMasks(entry.record.id, layout?.masks ?? []);
        if (layout === null) continue; // back to one monitor: the desktop keeps its size
        const outcome = await bridge?.tunnels.resizeDesktop(entry.record.id, layoutBounds(layout));
        if (outcome !== undefined && !outcome.applied)
          logger.info(
            { desktopId: entry.record.id, reason: outcome.reason },
            'desktop not resized to the layout',
          );
      }
    });
  const runtimeDesktopsChanged = async (
    desktopId: string,
    change: 'created' | 'changed' | 'removed' | 'grants',
  ): Promise<void> => {
    await plane.planes.desktopChanged(desktopId);
    if (change === 'removed') await localDesktops?.remove(desktopId);
    if (change === 'changed') await localDesktops?.reconcile(desktopId); // given away: HOME goes
    await desktopsChanged?.(desktopId, change);
  };
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
      mounts: [
        ...(extras.mounts ?? []),
        ...plane.mounts,
        (app) =>
          mountApi(app, {
            access,
            planes: plane.planes,
            endMcpSessions: (match, reason) =>
              site === undefined
                ? plane.sessions.endWhere(match, reason)
                : site.endMcpSessions(match, reason),
            oidc,
            logger: logger.child({ part: 'api' }),
            desktopSize,
            layoutSaved,
            secretBox,
            desktopsChanged: runtimeDesktopsChanged,
            directory,
          }),
        (app) =>
          mountFileRoutes(app, {
            access,
            folderOf: transferTargets({
              pool: localDesktops,
              rdpDriveRoot: files?.rdpDriveRoot,
              cliLocal:
                files?.cliLocal === undefined
                  ? undefined
                  : { id: () => directory.cliDesktopId(), desktop: files.cliLocal },
              reserveBytes: files?.reserveBytes,
              rdpDriveQuotaBytes: files?.rdpDriveQuotaBytes,
            }),
            policies: new TransferPolicies(access.store.transferPolicy),
            logger: logger.child({ part: 'files' }),
            maxBytes: files?.maxBytes,
            idleMs: files?.idleMs,
          }),
        (app) =>
          mountRecordingRoutes(app, {
            access,
            recordings,
            planes: plane.planes,
            logger: logger.child({ part: 'api' }),
          }),
      ],
      upgrades: {
        ...extras.upgrades,
        ...plane.upgrades,
        [FLEET_SOCKET_PATH]: fleetFeed.handleUpgrade,
      },
      tunnelDesktops,
      callReceipts,
      connectionObserver: recordings,
      desiredDesktopSize:
        extras.desiredDesktopSize ??
        (async (desktopId) => {
          // A fixed size on the record wins; else the owner's layout decides.
          const entry = await directory.get(desktopId);
          if (entry === undefined) return undefined;
          const { width, height } = entry.record.params;
          if (width !== undefined && height !== undefined) return { width, height };
          const saved = await readLayout(access.store, entry.record.ownerId, desktopId);
          return saved === null ? undefined : layoutBounds(saved.layout);
        }),
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
