// startBridge plus everything behind sign-in: the MCP control plane (/mcp, /ws/viewer, one
// plane per person) and the /api routes, sharing one Access (store, sessions, tokens, tickets,
// audit). Binds the Host check to the real port once listening, and closes the plane (sessions,
// viewer sockets) before the bridge. Used by `serve` and by the tests.
import type { Access } from '../auth/access.js';
import type { OidcSignIn } from '../auth/oidc.js';
import { mountApi, type ApiDeps } from '../api/index.js';
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
  const { oidc, desktopSize, layoutSaved, ...planeOptions } = options;
  const plane = createControlPlane({ ...planeOptions, logger });
  const access = options.access;
  let bridge: RunningBridge;
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
            ...(desktopSize === undefined ? {} : { desktopSize }),
            ...(layoutSaved === undefined ? {} : { layoutSaved }),
          }),
      ],
      upgrades: { ...extras.upgrades, ...plane.upgrades },
    });
  } catch (err) {
    await plane.close();
    throw err;
  }
  plane.bind({ host: bridge.host, port: bridge.port });
  const close = async (): Promise<void> => {
    await plane.close();
    await bridge.close();
  };
  return {
    ...bridge,
    controlPlane: plane,
    access,
    mcpUrl: new URL('/mcp', bridge.url).toString(),
    close,
  };
}
