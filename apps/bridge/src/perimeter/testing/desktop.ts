// Security test support: a real desktop (Xvnc on a 0600 Unix socket) behind the real gateway on
// a Unix socket, for the tests that need tunnels to stay open — sign-out and disabling must close
// live desktop connections, and the per-person tunnel cap counts live ones. Without a desktop a
// tunnel fails on its own at once, and its closing would prove nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, startLocalDesktop } from '@overlay-companion/gateway';
import type { ConnectionConfig, GuacdAddress } from '../../config.js';
import { silentLogger } from '../../logger.js';

export interface TestDesktop {
  /** What startTestBridge's `desktop` option takes. */
  target: { guacd: GuacdAddress; connection: ConnectionConfig };
  stop(): Promise<void>;
}

export async function startTestDesktop(): Promise<TestDesktop> {
  const workDir = await mkdtemp(join(tmpdir(), 'oc-security-desktop-'));
  const desktop = await startLocalDesktop({ windowManager: false, width: 640, height: 480 });
  try {
    const gateway = await startGateway({
      path: join(workDir, 'gateway.sock'),
      vncUnixSockets: [desktop.rfbPath],
      logger: silentLogger(),
    });
    return {
      target: {
        guacd: { path: gateway.path },
        connection: { protocol: 'vnc', params: { hostname: desktop.rfbPath } },
      },
      stop: async () => {
        await gateway.close();
        await desktop.stop();
        await rm(workDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await desktop.stop();
    await rm(workDir, { recursive: true, force: true });
    throw err;
  }
}
