// startBridge plus everything behind sign-in: the MCP control plane (/mcp, /ws/viewer,
// /ws/overlays, one plane per person) and the /api routes, sharing one Access (store, sessions,
// tokens, tickets, audit). The person's saved layout is the desktop's map and its size: it goes
// to their viewer windows (layout_changed), sizes their desktop when they save it (unless the
// operator fixed the size) and when their connection opens, and GET /api/layout shows the live
// desktop size. Binds the Host check to the real port once listening, and closes the plane
// (sessions, viewer sockets) before the bridge. Used by `serve` and by the tests.
import { layoutBounds, type MonitorLayout } from '@overlay-companion/protocol';
import type { Access } from '../auth/access.js';
import type { OidcSignIn } from '../auth/oidc.js';
import { mountApi, type ApiDeps } from '../api/index.js';
import { readLayout } from '../api/layout.js';
import type { BridgeConfigInput } from '../config.js';
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
  extends Omit<ControlPlaneOptions, 'logger'>, Pick<ApiDeps, 'desktopSize' | 'layoutSaved'> {
  oidc?: OidcSignIn | undefined;
}

export async function startWithControlPlane(
  input: BridgeConfigInput,
  options: ControlledBridgeOptions,
  extras: Omit<BridgeExtras, 'access'> = {},
): Promise<ControlledBridge> {
  const logger = extras.logger ?? silentLogger();
  const { oidc, ...planeOptions } = options;
  const plane = createControlPlane({ ...planeOptions, logger });
  const access = options.access;
  let bridge: RunningBridge | undefined;
  const desktopSize =
    options.desktopSize ?? ((personId: string) => bridge?.tunnels.desktopSize(personId) ?? null);
  const layoutSaved =
    options.layoutSaved ??
    (async (personId: string, layout: MonitorLayout | null) => {
      (await plane.planes.get(personId)).hub.setLayout(layout);
      if (layout === null) return; // back to one monitor: the desktop keeps its size
      const outcome = await bridge?.tunnels.resizeDesktop(personId, layoutBounds(layout));
      if (outcome !== undefined && !outcome.applied)
        logger.info({ personId, reason: outcome.reason }, 'desktop not resized to the layout');
    });
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
          }),
      ],
      upgrades: { ...extras.upgrades, ...plane.upgrades },
      desiredDesktopSize:
        extras.desiredDesktopSize ??
        (async (personId) => {
          const saved = await readLayout(access.store, personId);
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
  };
  return {
    ...running,
    controlPlane: plane,
    access,
    mcpUrl: new URL('/mcp', running.url).toString(),
    close,
  };
}
