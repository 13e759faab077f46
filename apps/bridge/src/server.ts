// Starts the bridge: the Hono app on a node http server, WebSocket upgrades routed by path
// (`/tunnel` here; the control plane adds `/ws/viewer` through `upgrades`) after the Host/Origin
// check, and a close() that ends every tunnel and connection it owns.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import type { Access } from './auth/access.js';
import type { BridgeEnv } from './http/env.js';
import {
  checkHostAndOrigin,
  hostOriginGuard,
  type BoundAddress,
  type HostPolicyOptions,
} from './auth/hostGuard.js';
import { openableHost } from './auth/loopback.js';
import { parseBridgeConfig, type BridgeConfig, type BridgeConfigInput } from './config.js';
import { StartupError } from './errors.js';
import { Readiness } from './http/readiness.js';
import { UpgradeRouter, type UpgradeHandler } from './http/upgradeRouter.js';
import { silentLogger } from './logger.js';
import type { BridgeMetrics } from './metrics/bridgeMetrics.js';
import type { DesktopSizeProvider } from './tunnel/desktopSize.js';
import type { TunnelRegistry } from './tunnel/registry.js';
import { TunnelEndpoint, type TunnelDesktops } from './tunnel/tunnelEndpoint.js';
import { OVERLAYS_SOCKET_PATH, TUNNEL_SOCKET_PATH } from '@overlay-companion/protocol';

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
  /** The desktop records tunnels may reach (the control plane's); absent: the config's one. */
  tunnelDesktops?: TunnelDesktops | undefined;
  /** For /readyz: whether the desktop itself answers (serve's local desktop), within the time. */
  desktopProbe?: ((timeoutMs: number) => Promise<boolean>) | undefined;
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
      }),
      metrics: extras.metrics,
      metricsToken: extras.metricsToken,
      metricsOpenLoopback: extras.metricsOpenLoopback,
    },
  });

  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  const router = new UpgradeRouter((request, path) => {
    const origin = request.headers.origin;
    // Browsers always send Origin on a WebSocket; one without it is not a page of ours — except
    // a program reading /ws/overlays with an API token in Authorization, a header no page can
    // put on a WebSocket (the token is checked by that endpoint).
    const program = path === OVERLAYS_SOCKET_PATH && request.headers.authorization !== undefined;
    if (origin === undefined && program) {
      const check = checkHostAndOrigin(hostPolicy, request.headers.host, undefined);
      return check.ok ? undefined : check;
    }
    if (origin === undefined) {
      return {
        status: 403,
        message: 'WebSocket upgrades must carry an Origin header naming this bridge.',
      };
    }
    const check = checkHostAndOrigin(hostPolicy, request.headers.host, origin);
    return check.ok ? undefined : check;
  }).add(TUNNEL_SOCKET_PATH, tunnel.handleUpgrade);
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
