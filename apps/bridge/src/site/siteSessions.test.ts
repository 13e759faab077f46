// MCP sessions when their bridge dies, for real: two bridges of a site (a token-protected
// nats-server and a PostgreSQL on loopback) behind one address (a plain forwarding front in this
// test, as Caddy or any load balancer: a request goes to the first bridge that takes the
// connection), the person's window on bridge 2, the AI's sessions landing on bridge 1. Bridge 1
// is killed mid-session. What we decided: a session's state is not carried over — the bridge that
// takes the next request does not know the session and answers HTTP 404 "Session not found",
// which is what the MCP spec tells a client to answer by starting a new session. A compliant SDK
// client does that and goes on; our stdio forwarder does it by itself, so the stdio client never
// notices (its next call just works).
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cliEntry } from '../headless/testing/cliProcess.js';
import { callTool } from '../mcp/testing/calls.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { startSiteServers } from './testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';

const { nats, postgres, missing } = await startSiteServers();

/**
 * One address in front of the bridges: each request goes to the first of `targets` that takes
 * the connection (a dead bridge refuses it), with its body and headers; answers stream back.
 * `hits` counts the requests each target answered.
 */
async function startFront(targets: string[]): Promise<{
  mcpUrl: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const tryAt = (i: number): void => {
        const target = targets[i];
        if (target === undefined) {
          res.writeHead(502).end('no bridge took the connection');
          return;
        }
        const url = new URL(req.url ?? '/', target);
        const out = httpRequest(
          url,
          { method: req.method, headers: { ...req.headers, host: url.host } },
          (up) => {
            hits.set(target, (hits.get(target) ?? 0) + 1);
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        out.on('error', () => {
          if (!res.headersSent) tryAt(i + 1);
          else res.destroy();
        });
        res.on('close', () => out.destroy());
        out.end(body);
      };
      tryAt(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    mcpUrl: `http://127.0.0.1:${port}/mcp`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.runIf(missing === undefined)('MCP sessions when their bridge dies', () => {
  const n = nats;
  const pg = postgres;
  let one: SiteBridge;
  let two: SiteBridge;

  beforeAll(async () => {
    const databaseUrl = await pg.newDatabase();
    const site = { servers: [n.address], token: n.token };
    // Autopilot: the clicks below run without asking.
    one = await startSiteBridge({ name: 's one', databaseUrl, site, initialMode: 'autopilot' });
    two = await startSiteBridge({ name: 's two', databaseUrl, site, initialMode: 'autopilot' });
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  test('a compliant SDK client and the stdio forwarder start again on another bridge', async () => {
    const front = await startFront([one.url, two.url]);
    const window = await ScriptedViewer.connect(two);
    window.on('click_at', { result: { success: true, was_confirmed: false } });
    await waitUntil(async () => (await one.site!.remote.holder(one.desktopId)) !== undefined, 5000);
    const sdk = await connectClient({ mcpUrl: front.mcpUrl }, { token: TOKEN });
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [...cliEntry().argv, 'stdio', '--url', front.mcpUrl],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OC_MCP_TOKEN: TOKEN },
      stderr: 'pipe',
    });
    let stderr = '';
    stdio.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const forwarded = new Client({ name: 'stdio-site-test', version: '0.0.0' });
    try {
      await forwarded.connect(stdio);
      const click = async (client: Client, x: number): Promise<CallToolResult> =>
        (await client.callTool({ name: 'click_at', arguments: { x, y: x } })) as CallToolResult;
      expect((await callTool(sdk.client, 'click_at', { x: 1, y: 1 })).isError).toBeFalsy();
      expect((await click(forwarded, 2)).isError).toBeFalsy();
      // Both sessions live on bridge 1 (the first the front tries); the clicks ran on bridge 2.
      expect(front.hits.get(one.url)).toBeGreaterThan(0);
      expect(front.hits.get(two.url) ?? 0).toBe(0);
      // Bridge 1 is killed: off NATS without a word, then its sockets drop.
      await one.site!.bus.nc.close();
      await one.close();
      // The SDK client's next call reaches bridge 2, which knows no such session: HTTP 404,
      // which the MCP spec answers with a new session (what a compliant client does).
      await expect(callTool(sdk.client, 'click_at', { x: 3, y: 3 })).rejects.toThrow(
        /404|Session not found/,
      );
      await sdk.client.close().catch(() => undefined);
      const again = await connectClient({ mcpUrl: front.mcpUrl }, { token: TOKEN });
      expect((await callTool(again.client, 'click_at', { x: 4, y: 4 })).isError).toBeFalsy();
      await again.client.close();
      // The stdio forwarder renews its session by itself: its client's next call just works.
      expect((await click(forwarded, 5)).isError).toBeFalsy();
      expect(window.toolCalls('click_at').map((c) => (c.args as { x: number }).x)).toEqual([
        1, 2, 4, 5,
      ]);
      expect(front.hits.get(two.url)).toBeGreaterThan(0);
    } catch (err) {
      throw new Error(`${String(err)}\nstdio stderr:\n${stderr}`, { cause: err });
    } finally {
      await forwarded.close().catch(() => undefined);
      await window.close();
      await front.close();
    }
  });
});
