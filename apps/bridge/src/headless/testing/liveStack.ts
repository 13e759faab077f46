// Test support: the whole real stack in-process on free loopback ports — a local Xvnc desktop,
// the embedded gateway, and the bridge with its desktop control (MCP, viewer sockets) serving the built viewer —
// for tests that put a real Chromium viewer page in front of it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway, startLocalDesktop, type LocalDesktop } from '@overlay-companion/gateway';
import { tokenHint } from '../../auth/apiTokens.js';
import { sha256Hex } from '../../auth/secrets.js';
import { silentLogger } from '../../logger.js';
import type { DesktopControlOptions } from '../../mcp/desktopControl.js';
import { startWithDesktopControl, type ControlledBridge } from '../../bridge.js';
import { TOKEN } from '../../mcp/testing/fixtures.js';
import { startTestAccess, type TestAccess } from '../../testing/testAccess.js';
import { REPO } from './cliProcess.js';

export const WEB_ROOT = join(REPO, 'apps/web/dist');

export interface LiveStack {
  desktop: LocalDesktop;
  bridge: ControlledBridge;
  /** The store, access and admin behind the bridge (TOKEN is one of the admin's tokens). */
  fixture: TestAccess;
  /** A sign-in cookie for the admin, minted in-process (for a browser context). */
  adminCookie(): Promise<{ name: string; value: string }>;
  close(): Promise<void>;
}

export async function startLiveStack(
  options: Partial<Omit<DesktopControlOptions, 'logger' | 'access'>> = {},
): Promise<LiveStack> {
  if (!existsSync(join(WEB_ROOT, 'index.html'))) {
    throw new Error(`The viewer is not built (${WEB_ROOT}); run \`npm run build\` first.`);
  }
  const fixture = await startTestAccess();
  await fixture.store.tokens.create({
    id: 'tok_live',
    personId: fixture.admin.id,
    name: 'live stack',
    tokenHash: sha256Hex(TOKEN),
    hint: tokenHint(TOKEN),
    createdAt: Date.now(),
    expiresAt: null,
  });
  const desktop = await startLocalDesktop({ xterm: true, windowManager: true });
  const gateway = await startGateway({
    path: join(fixture.dataDir, 'gateway.sock'),
    vncUnixSockets: [desktop.rfbPath],
    logger: silentLogger(),
  });
  const bridge = await startWithDesktopControl(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir: fixture.dataDir,
      webRoot: WEB_ROOT,
      guacd: { path: gateway.path },
      connection: { protocol: 'vnc', params: { hostname: desktop.rfbPath } },
    },
    { access: fixture.access, ...options },
  );
  return {
    desktop,
    bridge,
    fixture,
    adminCookie: async () => {
      const { cookieValue } = await fixture.access.sessions.create(
        fixture.admin,
        'password',
        'test',
      );
      return { name: fixture.access.cookie.name, value: cookieValue };
    },
    close: async () => {
      await bridge.close();
      await gateway.close();
      await desktop.stop();
      await fixture.close();
    },
  };
}
