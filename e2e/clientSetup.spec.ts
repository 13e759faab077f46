// The client configurations people paste, checked by using them: a token made on /config in
// Chromium, then every configuration the page shows with it (each client's tab chosen in turn) — and every one in the README, with
// the README's address and placeholders replaced the way a person would — is read as its client
// reads it (JSON server entries, `claude mcp add` arguments, VS Code's ${input:…} prompt, the stdio
// forwarder's command line) and a real MCP client (the SDK's) connects with exactly that: Streamable
// HTTP with the headers from the configuration, or the stdio forwarder as a child process.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { PAGES } from '@overlay-companion/protocol';
import {
  CLI_PLACEHOLDER,
  SERVER_NAME,
  TOKEN_PLACEHOLDER,
  VSCODE_TOKEN_INPUT,
  clientSetups,
} from '../apps/web/src/pages/console/config/clientConfig.js';
import {
  README_MCP_URL,
  readmeClientBlocks,
} from '../apps/web/src/pages/console/config/testing/readmeBlocks.js';
import { expect, test } from './fixtures.js';
import { ConsolePage } from './pages/ConsolePage.js';
import { BRIDGE_MAIN, REPO_ROOT } from './support/bridgeProcess.js';
import { signInContext } from './support/signIn.js';

/** How a client would connect, read from the text it was given. */
type Connection =
  | { kind: 'http'; url: string; headers: Record<string, string> }
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string> };

/** POSIX shell words: plain, '…' and "…" (no expansion; our texts need none). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /'([^']*)'|"((?:[^"\\]|\\.)*)"|([^\s'"]+)|(\s+)/g;
  let word: string | undefined;
  for (const match of line.matchAll(pattern)) {
    if (match[4] !== undefined) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    word = (word ?? '') + (match[1] ?? match[2]?.replace(/\\(.)/g, '$1') ?? match[3] ?? '');
  }
  if (word !== undefined) words.push(word);
  return words;
}

type ServerEntry = {
  type?: string;
  url?: string;
  baseUrl?: string;
  headers?: Record<string, string>;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
};

/** Reads one configuration the way its client does; `secret` answers VS Code's token prompt. */
function readConnection(id: string, text: string, secret: string): Connection {
  if (id === 'claude-code') {
    const words = shellWords(text);
    expect(words.slice(0, 5)).toEqual(['claude', 'mcp', 'add', '--transport', 'http']);
    expect(words[5]).toBe(SERVER_NAME);
    const header = words[words.indexOf('--header') + 1] ?? '';
    const at = header.indexOf(':');
    return {
      kind: 'http',
      url: words[6] ?? '',
      headers: { [header.slice(0, at).trim()]: header.slice(at + 1).trim() },
    };
  }
  if (id === 'stdio-command') {
    const words = shellWords(text);
    const env: Record<string, string> = {};
    while (/^[A-Z_]+=/.test(words[0] ?? '')) {
      const [name = '', ...value] = (words.shift() ?? '').split('=');
      env[name] = value.join('=');
    }
    return { kind: 'stdio', command: words[0] ?? '', args: words.slice(1), env };
  }
  const config = JSON.parse(text) as {
    mcpServers?: Record<string, ServerEntry>;
    servers?: Record<string, ServerEntry>;
  };
  const entry = (config.mcpServers ?? config.servers)?.[SERVER_NAME];
  expect(entry, `${id}: a "${SERVER_NAME}" server entry`).toBeDefined();
  if (entry?.command !== undefined) {
    return { kind: 'stdio', command: entry.command, args: entry.args ?? [], env: entry.env ?? {} };
  }
  // VS Code asks for each ${input:…} when it starts the server; the person types the token.
  const headers = Object.fromEntries(
    Object.entries(entry?.headers ?? {}).map(([name, value]) => [
      name,
      value.replace(`\${input:${VSCODE_TOKEN_INPUT}}`, secret),
    ]),
  );
  return { kind: 'http', url: entry?.url ?? entry?.baseUrl ?? '', headers };
}

/** Connects a real MCP client as `connection` says, lists the tools, and disconnects. */
async function connectWith(connection: Connection, name: string): Promise<string[]> {
  let transport: Transport;
  if (connection.kind === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(connection.url), {
      requestInit: { headers: connection.headers },
    });
  } else {
    // The forwarder runs on the AI client's machine: here, this checkout.
    const command = connection.command === 'node' ? process.execPath : connection.command;
    transport = new StdioClientTransport({
      command,
      args: connection.args,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...connection.env },
      cwd: REPO_ROOT,
      stderr: 'pipe',
    });
  }
  const client = new Client({ name, version: '0.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    return tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

test('every client configuration on /config and in the README connects a real MCP client', async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  const mcpUrl = new URL('/mcp', stack.url).toString();
  await signInContext(page.context(), stack);
  const consolePage = new ConsolePage(page, stack.url);
  await consolePage.open(PAGES.config);
  const secret = await consolePage.createToken('client setup check');

  const shown = page.locator('.new-token [data-client-setup]');
  const expected = clientSetups(mcpUrl, secret);
  await expect(shown).toHaveCount(expected.length);
  const pageTexts = new Map<string, string>();
  for (const panel of await shown.all()) {
    const id = (await panel.getAttribute('data-client-setup')) ?? '';
    // Read as the person sees it: their client's tab chosen, its panel shown.
    const tabId = (await panel.getAttribute('aria-labelledby')) ?? '';
    await page.locator(`[id="${tabId}"]`).click();
    await expect(panel).toBeVisible();
    pageTexts.set(id, (await panel.locator('pre').textContent()) ?? '');
  }
  expect([...pageTexts.keys()]).toEqual(expected.map((setup) => setup.id));

  const readme = readmeClientBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
  expect([...readme.keys()]).toEqual(expected.map((setup) => setup.id));

  for (const setup of expected) {
    await test.step(`${setup.client} (${setup.transport})`, async () => {
      // On the page: what the person copies right after creating the token.
      const fromPage = pageTexts.get(setup.id) ?? '';
      const pasted = fromPage.replaceAll(CLI_PLACEHOLDER, BRIDGE_MAIN);
      const pageConnection = readConnection(setup.id, pasted, secret);
      if (pageConnection.kind === 'http') expect(pageConnection.url).toBe(mcpUrl);
      expect(await connectWith(pageConnection, `page-${setup.id}`)).toContain('take_screenshot');

      // In the README: the same, once the person put in their address, token and folder.
      const block = readme.get(setup.id)?.body ?? '';
      const filled = block
        .replaceAll(README_MCP_URL, mcpUrl)
        .replaceAll(TOKEN_PLACEHOLDER, secret)
        .replaceAll(CLI_PLACEHOLDER, BRIDGE_MAIN);
      const readmeConnection = readConnection(setup.id, filled, secret);
      expect(readmeConnection).toEqual(pageConnection);
      expect(await connectWith(readmeConnection, `readme-${setup.id}`)).toContain(
        'take_screenshot',
      );
    });
  }

  // And a configuration with a wrong token is refused: the check above can fail.
  const wrong = readConnection('cursor', expected[2]?.text.replace(secret, 'oc_wrong') ?? '', '');
  await expect(connectWith(wrong, 'wrong-token')).rejects.toThrow(/401|Bearer|token/i);
});
