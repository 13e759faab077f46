// The one MCP client both sides of the comparison use: the official SDK's Client over
// Streamable HTTP (our bridge) or stdio (Playwright MCP), the e2e suite's tool call (it reports
// isError results instead of hiding them), and a timer that warms up before it records.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { callTool, type ToolOutcome } from '../e2e/support/controlPlane.js';

export { callTool, type ToolOutcome };

export const now = () => performance.timeOrigin + performance.now();

export async function connectHttp(mcpUrl: string, token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * Ends the client's MCP session on the bridge (DELETE /mcp with its session id), as a client
 * that is done should — the bridge caps open sessions per token — then closes the client.
 */
export async function closeHttp(client: Client): Promise<void> {
  const transport = client.transport;
  if (transport instanceof StreamableHTTPClientTransport) {
    await transport.terminateSession().catch(() => undefined);
  }
  await client.close().catch(() => undefined);
}

export async function connectStdio(
  command: string,
  args: string[],
  name: string,
  env?: Record<string, string>,
): Promise<Client> {
  const client = new Client({ name, version: '0.0.0' });
  // stderr is piped (not inherited) so the server's chatter never mixes with our JSON.
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  transport.stderr?.on('data', () => undefined);
  await client.connect(transport);
  return client;
}

/** Calls the tool and throws with its text when it answered isError: a bench must not time failures. */
export async function callOk(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolOutcome> {
  const outcome = await callTool(client, name, args);
  if (outcome.isError) throw new Error(`${name} failed: ${outcome.text.slice(0, 500)}`);
  return outcome;
}

/**
 * Runs `once` `warmup` times unrecorded, then `samples` times, returning the wall time of each
 * recorded run in milliseconds. `gapMs` spaces the calls (rate limits, X event separation).
 */
export async function timeRuns(
  samples: number,
  warmup: number,
  once: (i: number) => Promise<unknown>,
  gapMs = 0,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < warmup + samples; i++) {
    const start = performance.now();
    await once(i);
    const took = performance.now() - start;
    if (i >= warmup) times.push(took);
    if (gapMs > 0) await sleep(Math.max(0, gapMs - took));
  }
  return times;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
