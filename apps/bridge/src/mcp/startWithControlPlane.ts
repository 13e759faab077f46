// startBridge plus the MCP control plane: mounts /mcp and /api/viewer/ticket, registers the
// /ws/viewer upgrade, binds the Host check to the real port once listening, and closes the
// plane (sessions, viewer sockets) before the bridge. Used by `serve` and by the tests.
import type { BridgeConfigInput } from '../config.js';
import { assertNoAuthAllowed } from '../auth/mcpAuth.js';
import { silentLogger } from '../logger.js';
import { startBridge, type BridgeExtras, type RunningBridge } from '../server.js';
import { createControlPlane, type ControlPlane, type ControlPlaneOptions } from './controlPlane.js';

export interface ControlledBridge extends RunningBridge {
  controlPlane: ControlPlane;
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  mcpUrl: string;
}

export async function startWithControlPlane(
  input: BridgeConfigInput,
  options: Omit<ControlPlaneOptions, 'logger'>,
  extras: BridgeExtras = {},
): Promise<ControlledBridge> {
  // Refuse before anything listens: --no-auth on a reachable address is never started.
  if (!options.auth.required) assertNoAuthAllowed(input.host ?? '127.0.0.1');
  const logger = extras.logger ?? silentLogger();
  const plane = createControlPlane({ ...options, logger });
  let bridge: RunningBridge;
  try {
    bridge = await startBridge(input, {
      ...extras,
      publicUrl: extras.publicUrl ?? options.publicUrl,
      logger,
      mounts: [...(extras.mounts ?? []), ...plane.mounts],
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
  return { ...bridge, controlPlane: plane, mcpUrl: new URL('/mcp', bridge.url).toString(), close };
}
