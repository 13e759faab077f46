// Test support: a real bridge with sign-in, the desktop control and the API on a free loopback
// port (SQLite store in a temporary data dir, an admin person, two API tokens of theirs), signed
// in once over HTTP as the admin, and real MCP SDK clients (Client +
// StreamableHTTPClientTransport) connected to it with a bearer token.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { PermissionsPatch } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { tokenHint } from '../../auth/apiTokens.js';
import { sha256Hex } from '../../auth/secrets.js';
import type { ConnectionConfig, GuacdAddress } from '../../config.js';
import type { PersonRecord } from '../../store/types.js';
import { signIn, type BrowserSession } from '../../testing/browserSession.js';
import { registerSecret } from '../../testing/testLogs.js';
import {
  ADMIN_PASSWORD,
  ADMIN_USERNAME,
  startTestAccess,
  type TestAccessOptions,
} from '../../testing/testAccess.js';
import type { DesktopControlOptions } from '../desktopControl.js';
import type { DesktopPlane } from '../desktopPlanes.js';
import {
  startWithDesktopControl,
  type ControlledBridge,
  type ControlledBridgeOptions,
} from '../../bridge.js';

export { ADMIN_PASSWORD, ADMIN_USERNAME };

/** API tokens of the admin (stored hashed, like tokens made on the /config page). */
export const TOKEN = 'test-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const OTHER_TOKEN = 'test-token-bbbbbbbbbbbbbbbbbbbbbbbbbbbb';
registerSecret(TOKEN, OTHER_TOKEN);

/** An initialize request as raw JSON-RPC, for tests that POST to /mcp without the SDK client. */
export const INITIALIZE_REQUEST = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-test', version: '0' },
  },
};

export interface TestBridge extends ControlledBridge {
  dataDir: string;
  admin: PersonRecord;
  /** The admin, signed in over HTTP (as the web app does). */
  session: BrowserSession;
  /** The admin's plane (mode, hub, permissions), made at start. */
  /** The plane of the admin's desktop (the one the command line names). */
  adminPlane: DesktopPlane;
  /** A viewer ticket of the admin's session (ScriptedViewer.connect uses it). */
  ticket(): Promise<string>;
  /** A viewer ticket of an in-process headless session of the admin (as serve --headless-viewer). */
  headlessTicket(): Promise<string>;
}

export async function startTestBridge(
  options: Partial<Omit<DesktopControlOptions, 'logger' | 'access'>> &
    Pick<
      ControlledBridgeOptions,
      'desktopSize' | 'layoutSaved' | 'recording' | 'localDesktops' | 'files'
    > & {
      host?: string;
      access?: Omit<TestAccessOptions, 'logger'>;
      /** Toggles of the admin to set before anything connects (clipboard read and key presses start off). */
      permissions?: PermissionsPatch;
      /** Where the bridge writes its log (the access layer's and the bridge's); silent by default. */
      logger?: Logger;
      /** A real desktop behind a gateway for tests that keep tunnels open; none by default. */
      desktop?: { guacd: GuacdAddress; connection: ConnectionConfig };
    } = {},
): Promise<TestBridge> {
  const { host, access: accessOptions, permissions, logger, desktop, ...rest } = options;
  const fixture = await startTestAccess({ ...accessOptions, ...(logger ? { logger } : {}) });
  const { access, admin, dataDir, store } = fixture;
  if (permissions !== undefined) await store.permissions.update(admin.id, permissions);
  for (const [name, secret] of [
    ['test token', TOKEN],
    ['other test token', OTHER_TOKEN],
  ] as const) {
    await store.tokens.create({
      id: `tok_${name.replace(/ /g, '_')}`,
      personId: admin.id,
      name,
      tokenHash: sha256Hex(secret),
      hint: tokenHint(secret),
      createdAt: Date.now(),
      expiresAt: null,
    });
  }
  let bridge: ControlledBridge;
  try {
    bridge = await startWithDesktopControl(
      {
        host: host ?? '127.0.0.1',
        port: 0,
        dataDir,
        webRoot: join(dataDir, 'no-web-build'),
        // Nothing listens here unless a test brings a desktop: most never open a tunnel.
        guacd: desktop?.guacd ?? { host: '127.0.0.1', port: 9 },
        connection: desktop?.connection ?? { protocol: 'vnc', params: {} },
      },
      {
        access,
        ...rest,
        // Video export slots of its own: the machine's are shared by every bridge on it, and
        // this test's exports must not wait on another test's (or a bridge's running here).
        recording: { exportSlots: join(dataDir, 'export-slots'), ...rest.recording },
      },
      // The run's log dir gets every line (for the log scan) unless the test captures them.
      { logger: logger ?? fixture.logger },
    );
  } catch (err) {
    await fixture.close();
    throw err;
  }
  const session = await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
  const desktopId = await bridge.desktopControl.directory.cliDesktopId();
  const adminPlane =
    desktopId === undefined ? undefined : await bridge.desktopControl.planes.get(desktopId);
  if (adminPlane === undefined) throw new Error('the test bridge made no desktop for its admin');
  const close = async (): Promise<void> => {
    await bridge.close();
    await fixture.close();
  };
  return {
    ...bridge,
    dataDir,
    admin,
    session,
    adminPlane,
    ticket: () => session.ticket('viewer'),
    headlessTicket: () => {
      const { session: headless } = access.sessions.createHeadless(admin.id);
      const issued = access.tickets.issue({
        personId: admin.id,
        sessionIdHash: headless.idHash,
        socket: 'viewer',
        headless: true,
      });
      if (!issued.ok) return Promise.reject(new Error(issued.message));
      return Promise.resolve(issued.ticket);
    },
    close,
  };
}

export async function connectClient(
  bridge: { mcpUrl: string },
  options: { token?: string | null; capabilities?: ClientCapabilities } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const token = options.token === undefined ? TOKEN : options.token;
  const transport = new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), {
    requestInit: token === null ? {} : { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: 'bridge-test', version: '0.0.0' },
    { capabilities: options.capabilities ?? {} },
  );
  await client.connect(transport);
  return { client, transport };
}

/** A 1×1 transparent PNG. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A viewer result for take_screenshot around TINY_PNG_BASE64 (pixels can vary via `data`). */
export function screenshotResult(data = TINY_PNG_BASE64): Record<string, unknown> {
  return {
    width: 1,
    height: 1,
    region: { x: 0, y: 0, width: 1, height: 1 },
    scale: 1,
    monitor_index: 0,
    display_scale: 1,
    viewport_scroll: { x: 0, y: 0 },
    format: 'png',
    byte_length: Buffer.from(data, 'base64').length,
    data,
  };
}
