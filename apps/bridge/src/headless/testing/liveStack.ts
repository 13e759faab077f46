// Test support: the whole real stack in-process on free loopback ports — a local Xvnc desktop,
// the embedded gateway, and the bridge with its MCP control plane serving the built viewer —
// for tests that put a real Chromium viewer page in front of it.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, startLocalDesktop, type LocalDesktop } from '@overlay-companion/gateway';
import { tokenAuthenticator } from '../../auth/mcpAuth.js';
import { silentLogger } from '../../logger.js';
import type { ControlPlaneOptions } from '../../mcp/controlPlane.js';
import { startWithControlPlane, type ControlledBridge } from '../../mcp/startWithControlPlane.js';
import { TOKEN } from '../../mcp/testing/fixtures.js';
import { REPO } from './cliProcess.js';

export const WEB_ROOT = join(REPO, 'apps/web/dist');

export interface LiveStack {
  desktop: LocalDesktop;
  bridge: ControlledBridge;
  close(): Promise<void>;
}

export async function startLiveStack(
  options: Partial<Omit<ControlPlaneOptions, 'logger' | 'auth'>> = {},
): Promise<LiveStack> {
  if (!existsSync(join(WEB_ROOT, 'index.html'))) {
    throw new Error(`The viewer is not built (${WEB_ROOT}); run \`npm run build\` first.`);
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'oc-live-'));
  const desktop = await startLocalDesktop({ xterm: true, windowManager: true });
  const gateway = await startGateway({ host: '127.0.0.1', port: 0, logger: silentLogger() });
  const bridge = await startWithControlPlane(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir,
      webRoot: WEB_ROOT,
      guacd: { host: gateway.host, port: gateway.port },
      connection: {
        protocol: 'vnc',
        params: { hostname: desktop.host, port: String(desktop.port) },
      },
    },
    { auth: tokenAuthenticator([TOKEN]), ...options },
  );
  return {
    desktop,
    bridge,
    close: async () => {
      await bridge.close();
      await gateway.close();
      await desktop.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
