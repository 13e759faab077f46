// startBridge plus everything behind sign-in: the MCP control plane (/mcp, /ws/viewer,
// /ws/overlays, one plane per desktop) and the /api routes, sharing one Access (store, sessions,
// tokens, tickets, audit), and the desktops: their records (DesktopDirectory; the command line's
// desktop reaches the configured connection, every other record its own target — desktopTargets)
// and what a change to one does at once (planes reload, a removed local desktop stops). An
// owner's saved layout is the map and size of the desktops they own: it goes to those desktops'
// windows (layout_changed), sizes them when saved (unless the operator or the record fixed the
// size) and when their connection opens, and GET /api/layout shows the live desktop size. Binds the Host check to the real port once listening, and closes the plane
// (sessions, viewer sockets) before the bridge. Used by `serve` and by the tests.
import { layoutBounds, type DesktopParams, type MonitorLayout } from '@overlay-companion/protocol';

/** Without serve's flags: one desktop named "Desktop" reaching the configured connection. */
const DEFAULT_CLI_DESKTOP: Omit<CliDesktop, 'seal'> & { password?: string } = {
  name: 'Desktop',
  kind: 'vnc',
  params: {},
};
import type { Access } from '../auth/access.js';
import type { OidcSignIn } from '../auth/oidc.js';
import { mountApi, type ApiDeps } from '../api/index.js';
import { readLayout } from '../api/layout.js';
import { DesktopSecretBox } from '../desktops/credentials.js';
import { DesktopDirectory, type CliDesktop } from '../desktops/desktopDirectory.js';
import { desktopTargets, type DesktopTargetsOptions } from '../desktops/desktopTargets.js';
import type { LocalDesktopPool } from '../desktops/localDesktopPool.js';
import {
  parseBridgeConfig,
  type BridgeConfigInput,
  type ConnectionConfig,
  type GuacdAddress,
} from '../config.js';
import type { TunnelDesktops } from '../tunnel/tunnelEndpoint.js';
import type { TunnelTarget } from '../tunnel/tunnelSession.js';
import { silentLogger } from '../logger.js';
import { startBridge, type BridgeExtras, type RunningBridge } from '../server.js';
import { createControlPlane, type ControlPlane, type ControlPlaneOptions } from './controlPlane.js';

export interface ControlledBridge extends RunningBridge {
  controlPlane: ControlPlane;
  access: Access;
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  mcpUrl: string;
}

export interface ControlledBridgeOptions
  extends
    Omit<ControlPlaneOptions, 'logger'>,
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
}

export async function startWithControlPlane(
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
    ...controlOptions
  } = planeOptions;
  const plane = createControlPlane({ ...controlOptions, directory, logger });
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
    if (change === 'removed') await localDesktops?.stop(desktopId);
    await desktopsChanged?.(desktopId, change);
  };
  try {
    bridge = await startBridge(input, {
      ...extras,
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
            endMcpSessions: (match, reason) => plane.sessions.endWhere(match, reason),
            oidc,
            logger: logger.child({ part: 'api' }),
            desktopSize,
            layoutSaved,
            secretBox,
            desktopsChanged: runtimeDesktopsChanged,
            directory,
          }),
      ],
      upgrades: { ...extras.upgrades, ...plane.upgrades },
      tunnelDesktops,
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
    await plane.close();
    throw err;
  }
  const running = bridge;
  plane.bind({ host: running.host, port: running.port });
  const close = async (): Promise<void> => {
    await plane.close();
    await running.close();
    await localDesktops?.close();
  };
  return {
    ...running,
    controlPlane: plane,
    access,
    mcpUrl: new URL('/mcp', running.url).toString(),
    close,
  };
}
