// `overlay-companion stdio` as a real child process driven by the MCP SDK's StdioClientTransport,
// forwarding to a real bridge: tools list and call through it, elicitation passes both ways,
// failures (wrong token, bridge down, bridge killed mid-call) come back as JSON-RPC errors with a
// clear stderr line while the proxy keeps running, and a restarted bridge gets a new session.
// Bridge processes are scripted serves (OC_ADMIN_USER / OC_ADMIN_PASSWORD, OC_MCP_TOKEN); their
// viewer is a scripted window of the admin, signed in over HTTP as the web app is.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  TOKEN,
  screenshotResult,
  startTestBridge,
  type TestBridge,
} from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { waitUntil } from '../mcp/testing/wait.js';
import { cliEntry, scriptedServeEnv, startServe } from '../headless/testing/cliProcess.js';
import { signIn } from '../testing/browserSession.js';

const DISPLAY_INFO = {
  desktop: { width: 1280, height: 800 },
  monitors: [{ index: 0, x: 0, y: 0, width: 1280, height: 800, scale: 1 }],
};

interface StdioRun {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  alive: () => boolean;
}

const runs: StdioRun[] = [];

/** `overlay-companion stdio` as a child behind a stdio transport, its stderr collected. */
function spawnProxy(
  args: string[],
  env: Record<string, string>,
): { transport: StdioClientTransport; stderr: () => string; alive: () => boolean } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cliEntry().argv, 'stdio', ...args],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const alive = (): boolean => {
    const pid = transport.pid;
    if (pid === null) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  return { transport, stderr: () => stderr, alive };
}

/** Spawns `overlay-companion stdio` and connects an SDK client to it over stdio. */
function stdioClient(
  args: string[],
  env: Record<string, string>,
  capabilities: ClientCapabilities = {},
): StdioRun & { connected: Promise<void> } {
  const { transport, stderr, alive } = spawnProxy(args, env);
  const client = new Client({ name: 'stdio-test', version: '0.0.0' }, { capabilities });
  const connected = client.connect(transport);
  const run = { client, transport, stderr, alive };
  runs.push(run);
  return { ...run, connected };
}

afterEach(async () => {
  for (const run of runs.splice(0)) await run.client.close().catch(() => undefined);
  for (const raw of raws.splice(0)) await raw.close();
});

const INITIALIZE_PARAMS = {
  protocolVersion: LATEST_PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'raw-stdio-test', version: '0' },
};

interface RawStdio {
  request(id: number, method: string, params: unknown): Promise<JSONRPCErrorResponse>;
  stderr(): string;
  alive(): boolean;
  close(): Promise<void>;
}
const raws: RawStdio[] = [];

/** The proxy over a bare StdioClientTransport, so a failed initialize does not close it. */
async function rawStdio(args: string[], env: Record<string, string>): Promise<RawStdio> {
  const { transport, stderr, alive } = spawnProxy(args, env);
  const answers = new Map<unknown, (m: JSONRPCMessage) => void>();
  transport.onmessage = (message) => {
    if ('id' in message) answers.get(message.id)?.(message);
  };
  await transport.start();
  const raw: RawStdio = {
    request: async (id, method, params) => {
      const answer = new Promise<JSONRPCMessage>((resolve) => answers.set(id, resolve));
      await transport.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
      const message = await answer;
      if (!('error' in message))
        throw new Error(`expected an error, got ${JSON.stringify(message)}`);
      return message;
    },
    stderr,
    alive,
    close: () => transport.close(),
  };
  raws.push(raw);
  return raw;
}

/** A loopback port nothing listens on (bound once, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('overlay-companion stdio against a live bridge', () => {
  let bridge: TestBridge;
  let viewer: ScriptedViewer;

  beforeEach(async () => {
    // The admin lets their MCP client answer approvals when no window of theirs is open.
    bridge = await startTestBridge({ permissions: { approvals_through_client: true } });
    viewer = await ScriptedViewer.connect(bridge, { headless: true });
    viewer.on('get_display_info', { result: DISPLAY_INFO });
  });
  afterEach(async () => {
    await viewer.close();
    await bridge.close();
  });

  it('lists and calls tools through the proxy, with the token from OC_MCP_TOKEN', async () => {
    const run = stdioClient(['--url', bridge.mcpUrl], { OC_MCP_TOKEN: TOKEN });
    await run.connected;
    expect(run.client.getServerVersion()?.name).toBe('overlay-companion');
    const { tools } = await run.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['get_display_info', 'click_at', 'take_screenshot']),
    );
    const result = (await run.client.callTool({ name: 'get_display_info' })) as CallToolResult;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(DISPLAY_INFO);
    expect(viewer.toolCalls('get_display_info')).toHaveLength(1);
    expect(run.stderr()).toMatch(/token from OC_MCP_TOKEN/);
    expect(run.stderr()).not.toContain(TOKEN);
  });

  it('passes elicitation through: the approval asked by the bridge is answered over stdio', async () => {
    viewer.on('click_at', { result: { success: true, was_confirmed: false } });
    const run = stdioClient(
      ['--url', bridge.mcpUrl],
      { OC_MCP_TOKEN: TOKEN },
      {
        elicitation: { form: {} },
      },
    );
    const asked: string[] = [];
    run.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    await run.connected;
    const result = (await run.client.callTool({
      name: 'click_at',
      arguments: { x: 10, y: 20 },
    })) as CallToolResult;
    expect(result.isError).toBeUndefined();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('click_at');
    // Approved through the client, so the headless viewer is told not to ask.
    expect(viewer.toolCalls('click_at')[0]?.policy).toBe('allow');
  });

  it('answers a wrong token with a JSON-RPC error and a stderr line, and keeps running', async () => {
    const raw = await rawStdio(['--url', bridge.mcpUrl], {
      OC_MCP_TOKEN: 'wrong-token-cccccccccccccccccccccc',
    });
    const first = await raw.request(1, 'initialize', INITIALIZE_PARAMS);
    expect(first.error?.message).toMatch(
      /refused the token \(HTTP 401: missing, wrong, expired or revoked\)\. Create a token on the bridge's \/config page and set OC_MCP_TOKEN/,
    );
    expect(first.error?.message).not.toContain('wrong-token-');
    // Still serving: the next request gets its own answer.
    const second = await raw.request(2, 'ping', {});
    expect(second.error?.message).toMatch(/HTTP 401/);
    expect(raw.stderr()).toMatch(/refused the token \(HTTP 401: /);
    expect(raw.stderr()).not.toContain('wrong-token-');
    expect(raw.alive()).toBe(true);
  });

  it('reads the token from --token-file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oc-stdio-'));
    try {
      const file = join(dir, 'token');
      const { writeFile } = await import('node:fs/promises');
      await writeFile(file, `${TOKEN}\n`);
      const run = stdioClient(['--url', bridge.mcpUrl, '--token-file', file], {});
      await run.connected;
      expect((await run.client.listTools()).tools.length).toBeGreaterThan(10);
      expect(run.stderr()).toContain(`token from ${file}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('overlay-companion stdio when the bridge is gone', () => {
  it('answers with "Cannot reach the bridge" when nothing listens, without crashing', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const raw = await rawStdio(['--url', url], { OC_MCP_TOKEN: TOKEN });
    for (const id of [1, 2]) {
      const answer = await raw.request(id, 'initialize', INITIALIZE_PARAMS);
      expect(answer.error?.message).toContain(`Cannot reach the bridge at ${url} (ECONNREFUSED)`);
    }
    expect(raw.stderr()).toMatch(/Cannot reach the bridge .*ECONNREFUSED.*overlay-companion serve/);
    expect(raw.alive()).toBe(true);
  });

  it('fails a call in flight when the bridge process is killed mid-call', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'oc-stdio-kill-'));
    const scripted = scriptedServeEnv();
    // A real bridge process (no desktop needed: only the control channel is used).
    const serve = await startServe(
      ['--port', '0', '--data-dir', dataDir, '--vnc', '127.0.0.1:9'],
      scripted.env,
    );
    try {
      const admin = await signIn(serve.url, scripted.username, scripted.password);
      const viewer = await ScriptedViewer.connect(admin);
      viewer.on('wait_for_screen', 'ignore');
      const run = stdioClient(['--url', serve.mcpUrl], { OC_MCP_TOKEN: scripted.token });
      await run.connected;
      const call = run.client.callTool({
        name: 'wait_for_screen',
        arguments: { until: 'changed' },
      });
      await viewer.waitFor((m) => m.type === 'tool_call');
      const killedAt = performance.now();
      // SIGKILL is the point here; no desktop was started, so nothing is left behind.
      serve.cli.child.kill('SIGKILL');
      await expect(call).rejects.toThrow(
        /closed the connection before answering \(it stopped or restarted\)/,
      );
      const elapsed = performance.now() - killedAt;
      // wait_for_screen's own budget is 10 s; the proxy answers well before it.
      expect(elapsed).toBeLessThan(2000);
      expect(run.alive()).toBe(true);
      await viewer.close().catch(() => undefined);
    } finally {
      await serve.cli.shutdown();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('opens a new session by itself after the bridge restarts, resource subscriptions included', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'oc-stdio-restart-'));
    const scripted = scriptedServeEnv();
    const flags = ['--port', String(await closedPort()), '--data-dir', dataDir];
    const desktop = ['--vnc', '127.0.0.1:9']; // only the control channel is used
    let serve = await startServe([...flags, ...desktop], scripted.env);
    const viewers: ScriptedViewer[] = [];
    const scriptedViewer = async (url: string): Promise<ScriptedViewer> => {
      const admin = await signIn(url, scripted.username, scripted.password);
      const viewer = await ScriptedViewer.connect(admin);
      viewer.on('get_display_info', { result: DISPLAY_INFO });
      viewer.on('take_screenshot', { result: screenshotResult() });
      viewers.push(viewer);
      return viewer;
    };
    try {
      await scriptedViewer(serve.url);
      // A token made on the API as the signed-in admin (as on the /config page): it is stored,
      // so it still works after the restart.
      const admin = await signIn(serve.url, scripted.username, scripted.password);
      const created = await admin.request('/api/tokens', { body: { name: 'stdio test' } });
      expect(created.status).toBe(201);
      const { secret } = (await created.json()) as { secret: string };
      const run = stdioClient(['--url', serve.mcpUrl], { OC_MCP_TOKEN: secret });
      await run.connected;
      const updates: string[] = [];
      run.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updates.push(n.params.uri);
      });
      await run.client.subscribeResource({ uri: 'screenshot://latest' });
      const before = (await run.client.callTool({ name: 'get_display_info' })) as CallToolResult;
      expect(before.structuredContent).toEqual(DISPLAY_INFO);

      await serve.cli.stop('SIGINT');
      serve = await startServe([...flags, ...desktop], scripted.env);
      await scriptedViewer(serve.url);

      // The first call after the restart gets a 404 for the old session; the proxy opens a new
      // one and resends it, so the client sees a plain answer.
      const after = (await run.client.callTool({ name: 'get_display_info' })) as CallToolResult;
      expect(after.isError).not.toBe(true);
      expect(after.structuredContent).toEqual(DISPLAY_INFO);
      expect(run.stderr()).toMatch(
        /no longer knew this MCP session .*opened a new one and subscribed again to screenshot:\/\/latest/,
      );
      expect(run.stderr()).not.toMatch(/Restart this MCP server/);
      expect(run.stderr()).not.toContain(secret);
      // The subscription is live in the new session: periodic captures notify the client.
      await run.client.callTool({
        name: 'set_screenshot_frequency',
        arguments: { mode: 'periodic', interval_ms: 250 },
      });
      await waitUntil(() => updates.includes('screenshot://latest'), 5000);
      expect(run.alive()).toBe(true);
    } finally {
      for (const viewer of viewers) await viewer.close().catch(() => undefined);
      await serve.cli.shutdown();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
