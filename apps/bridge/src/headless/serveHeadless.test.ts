// `overlay-companion serve --headless-viewer` end to end, as a real process with a real local
// desktop and Debian's Chromium, scripted as such setups are (OC_ADMIN_USER / OC_ADMIN_PASSWORD
// for the admin the headless viewer acts for, OC_MCP_TOKEN for the AI client; never printed):
// with nobody at a browser, input approvals go to the MCP client
// by elicitation (accept clicks on the real desktop, decline does not) and are denied for a
// client without elicitation; the MCP Inspector CLI (a client no one here wrote) lists tools and
// reads the real display; Ctrl-C (SIGINT) exits 0 and takes Chromium down with it.
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API } from '@overlay-companion/protocol';
import { connectClient } from '../mcp/testing/fixtures.js';
import { signIn } from '../testing/browserSession.js';
import { errorOf } from '../mcp/testing/calls.js';
import {
  printedDesktop,
  scriptedServeEnv,
  spawnCli,
  startServe,
  type CliProcess,
} from './testing/cliProcess.js';
import { chromiumChildren, isAlive } from './testing/processes.js';
import { removeDataDir } from '../testing/dataDirs.js';

const run = promisify(execFile);
const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';

async function pointer(xEnv: NodeJS.ProcessEnv): Promise<{ x: number; y: number }> {
  const { stdout } = await run('xdotool', ['getmouselocation', '--shell'], { env: xEnv });
  return { x: Number(/X=(\d+)/.exec(stdout)?.[1]), y: Number(/Y=(\d+)/.exec(stdout)?.[1]) };
}

async function screenSize(xEnv: NodeJS.ProcessEnv): Promise<{ width: number; height: number }> {
  const { stdout } = await run('xdpyinfo', [], { env: xEnv });
  const match = /dimensions:\s+(\d+)x(\d+) pixels/.exec(stdout);
  return { width: Number(match?.[1]), height: Number(match?.[2]) };
}

/** Runs the Inspector CLI; resolves with its exit code and output (it never throws). */
async function inspector(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['-y', INSPECTOR, '--cli', ...args], {
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const click = async (client: Client, x: number, y: number): Promise<CallToolResult> =>
  (await client.callTool({ name: 'click_at', arguments: { x, y } })) as CallToolResult;

describe('serve --headless-viewer without an admin', () => {
  it(
    'exits 1 before starting anything, saying how to create the admin',
    { timeout: 30_000 },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'oc-headless-noadmin-'));
      try {
        const run = spawnCli(['serve', '--headless-viewer', '--port', '0', '--data-dir', dataDir]);
        expect((await run.exited).code).toBe(1);
        expect(run.stderr()).toMatch(/--headless-viewer acts for the admin.*OC_ADMIN_USER/);
        expect(run.stdout()).not.toMatch(/Open:/);
      } finally {
        await removeDataDir(dataDir);
      }
    },
  );
});

describe('serve --headless-viewer (real process, desktop and Chromium)', () => {
  let dataDir: string;
  let cli: CliProcess;
  let mcpUrl: string;
  const scripted = scriptedServeEnv();
  const token = scripted.token;
  let display: string;
  let xEnv: NodeJS.ProcessEnv;
  let chromium: number[] = [];
  const clients: Client[] = [];
  const connect = async (elicit?: (message: string) => ElicitResult): Promise<Client> => {
    const { client } = await connectClient(
      { mcpUrl },
      { token, capabilities: elicit === undefined ? {} : { elicitation: { form: {} } } },
    );
    if (elicit !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
    }
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oc-headless-serve-'));
    const started = await startServe(
      ['--headless-viewer', '--port', '0', '--data-dir', dataDir],
      scripted.env,
    );
    cli = started.cli;
    mcpUrl = started.mcpUrl;
    // Approving through the MCP client is the person's choice, off until they turn it on.
    const admin = await signIn(
      new URL('/', mcpUrl).toString(),
      scripted.username,
      scripted.password,
    );
    const allowed = await admin.request(API.myPermissions, {
      method: 'PUT',
      body: { approvals_through_client: true },
    });
    expect(allowed.status).toBe(200);
    ({ display, xEnv } = printedDesktop(cli.stdout()));
    chromium = chromiumChildren(cli.child.pid);
  }, 90_000);
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await cli?.shutdown();
    await removeDataDir(dataDir);
  });

  it('starts Chromium and the headless page answers get_display_info from the desktop', async () => {
    expect(display).toMatch(/^:\d+$/);
    // The page opens the plain viewer: being headless comes from the sign-in session the
    // bridge minted in-process, not from anything in the URL.
    expect(cli.stdout()).toMatch(/Headless viewer: Chromium on http:\/\/127\.0\.0\.1:\d+\/\n/);
    expect(cli.stdout()).toContain(`Sign in:  as ${scripted.username}`);
    expect(cli.stdout()).toContain('OC_MCP_TOKEN is set');
    for (const secret of [token, scripted.password]) {
      expect(cli.stdout()).not.toContain(secret);
      expect(cli.stderr()).not.toContain(secret);
    }
    expect(chromium).toHaveLength(1);
    const client = await connect();
    const deadline = Date.now() + 40_000;
    let result: CallToolResult;
    do {
      result = (await client.callTool({ name: 'get_display_info' })) as CallToolResult;
      if (result.isError !== true) break;
      await new Promise((r) => setTimeout(r, 300));
    } while (Date.now() < deadline);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ desktop: await screenSize(xEnv) });
  }, 60_000);

  it('asks an elicitation client, and an accepted click lands on the real desktop', async () => {
    const asked: string[] = [];
    const client = await connect((message) => {
      asked.push(message);
      return { action: 'accept', content: { approve: true } };
    });
    const result = await click(client, 123, 234);
    expect(result.isError).toBeUndefined();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/click_at.*"x":123.*"y":234/);
    expect(await pointer(xEnv)).toEqual({ x: 123, y: 234 });
  });

  it('a declined elicitation denies the click, and the pointer stays', async () => {
    const client = await connect(() => ({ action: 'decline' }));
    const result = await click(client, 400, 300);
    expect(errorOf(result).kind).toBe('permission_denied');
    expect(errorOf(result).message).toMatch(/declined click_at/);
    expect(await pointer(xEnv)).toEqual({ x: 123, y: 234 });
  });

  it('a client without elicitation is denied with the reason', async () => {
    const client = await connect();
    const result = await click(client, 500, 500);
    expect(errorOf(result).kind).toBe('permission_denied');
    expect(errorOf(result).message).toMatch(/did not declare the elicitation capability/);
    expect(await pointer(xEnv)).toEqual({ x: 123, y: 234 });
  });

  it('the MCP Inspector CLI lists the tools and calls get_display_info', async () => {
    const auth = ['--header', `Authorization: Bearer ${token}`];
    const list = await inspector([mcpUrl, '--method', 'tools/list', ...auth]);
    expect(list.code).toBe(0);
    const tools = (JSON.parse(list.stdout) as { tools: Array<{ name: string }> }).tools;
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['get_display_info', 'take_screenshot', 'click_at', 'draw_overlay']),
    );
    const call = await inspector([
      mcpUrl,
      '--method',
      'tools/call',
      '--tool-name',
      'get_display_info',
      ...auth,
    ]);
    expect(call.code).toBe(0);
    const result = JSON.parse(call.stdout) as CallToolResult;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ desktop: await screenSize(xEnv) });
  }, 120_000);

  it('the MCP Inspector CLI without the token is refused', async () => {
    const list = await inspector([mcpUrl, '--method', 'tools/list']);
    expect(list.code).not.toBe(0);
    // The bridge answers 401 with WWW-Authenticate: Bearer; the Inspector then wants OAuth,
    // which it cannot do without a TTY, and says so.
    expect(`${list.stdout}${list.stderr}`).toMatch(/auth_required|401/);
    expect(list.stdout).not.toMatch(/get_display_info/);
  }, 120_000);

  it('SIGINT stops everything: exit 0 and Chromium gone', async () => {
    const exit = await cli.stop('SIGINT');
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of chromium) expect(isAlive(pid)).toBe(false);
    // Nothing it printed in its whole run named the token or the password.
    for (const secret of [token, scripted.password]) {
      expect(`${cli.stdout()}${cli.stderr()}`).not.toContain(secret);
    }
  }, 30_000);
});
