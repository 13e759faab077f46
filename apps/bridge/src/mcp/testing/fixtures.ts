// Test support: a real bridge with the control plane on a free loopback port, and real MCP SDK
// clients (Client + StreamableHTTPClientTransport) connected to it with a bearer token.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { tokenAuthenticator } from '../../auth/mcpAuth.js';
import type { McpAuthenticator } from '../../auth/mcpAuth.js';
import { startWithControlPlane, type ControlledBridge } from '../startWithControlPlane.js';
import type { ControlPlaneOptions } from '../controlPlane.js';

export const TOKEN = 'test-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const OTHER_TOKEN = 'test-token-bbbbbbbbbbbbbbbbbbbbbbbbbbbb';

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
}

export async function startTestBridge(
  options: Partial<Omit<ControlPlaneOptions, 'logger' | 'auth'>> & {
    auth?: McpAuthenticator;
    host?: string;
  } = {},
): Promise<TestBridge> {
  const dataDir = await mkdtemp(join(tmpdir(), 'oc-bridge-test-'));
  const { auth, host, ...rest } = options;
  const bridge = await startWithControlPlane(
    {
      host: host ?? '127.0.0.1',
      port: 0,
      dataDir,
      webRoot: join(dataDir, 'no-web-build'),
      // Nothing listens here; the tunnel is not used by these tests.
      guacd: { host: '127.0.0.1', port: 9 },
      connection: { protocol: 'vnc', params: {} },
    },
    { auth: auth ?? tokenAuthenticator([TOKEN, OTHER_TOKEN]), ...rest },
  );
  const close = async (): Promise<void> => {
    await bridge.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  return { ...bridge, dataDir, close };
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
    monitor_index: null,
    display_scale: 1,
    viewport_scroll: { x: 0, y: 0 },
    format: 'png',
    byte_length: Buffer.from(data, 'base64').length,
    data,
  };
}
