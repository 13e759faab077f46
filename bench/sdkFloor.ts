// The MCP SDK's own floor on this machine: a minimal server in another Node process — Hono on
// @hono/node-server, one WebStandardStreamableHTTPServerTransport + McpServer per session (the
// bridge's arrangement, without auth, policy or relay) with a tool that returns at once — timed
// with our SDK client. Run twice: SSE responses (the transport's default, what the bridge uses)
// and enableJsonResponse. Shows how much of a bridge round trip is the SDK and HTTP layer.
// Calls are paced like the bridge's loops (`gapMs` apart): on our VMs a process that idles
// between calls pays for waking up again, so back-to-back calls would understate the floor.
import { spawn } from 'node:child_process';
import { REPO_ROOT } from '../e2e/support/bridgeProcess.js';
import { processCpuMs } from './cpu.js';
import { callOk, connectHttp, timeRuns } from './mcpClient.js';
import { summarize, type Summary } from './stats.js';

const SERVER = `
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { randomUUID } from 'node:crypto';
const json = process.argv.includes('--json');
const sessions = new Map();
const app = new Hono();
app.all('/mcp', async (c) => {
  const id = c.req.header('mcp-session-id');
  if (id !== undefined) return sessions.get(id).handleRequest(c.req.raw);
  const server = new McpServer({ name: 'floor', version: '0' });
  server.registerTool('noop', { description: 'returns at once' }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: json,
    onsessioninitialized: (sid) => sessions.set(sid, transport),
  });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw);
});
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => console.log(info.port));
`;

export interface FloorRun {
  round_trip_ms: Summary;
  /** CPU milliseconds per call in the server process and in this (client) process. */
  cpu_ms_per_call: { server: number; client: number };
}

export interface SdkFloor {
  /** Time from the end of one call to the start of the next, as in the bridge's loops. */
  gap_ms: number;
  sse: FloorRun;
  json: FloorRun;
}

async function floorOnce(json: boolean, samples: number, gapMs: number): Promise<FloorRun> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', SERVER, '--', ...(json ? ['--json'] : [])],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  try {
    const port = await new Promise<number>((ok, fail) => {
      child.stdout.once('data', (chunk: Buffer) => ok(Number(chunk.toString().trim())));
      child.once('exit', (code) => fail(new Error(`the SDK floor server exited (${code})`)));
    });
    const client = await connectHttp(`http://127.0.0.1:${port}/mcp`, 'unused', 'oc-bench-floor');
    try {
      await timeRuns(0, 20, () => callOk(client, 'noop', {}), gapMs);
      const server = processCpuMs(child.pid ?? -1);
      const own = process.cpuUsage();
      const times = await timeRuns(samples, 0, () => callOk(client, 'noop', {}), gapMs);
      const ownUsed = process.cpuUsage(own);
      const per = (ms: number) => Math.round((ms / samples) * 1000) / 1000;
      return {
        round_trip_ms: summarize(times),
        cpu_ms_per_call: {
          server: per(processCpuMs(child.pid ?? -1) - server),
          client: per((ownUsed.user + ownUsed.system) / 1000),
        },
      };
    } finally {
      await client.close();
    }
  } finally {
    child.kill();
  }
}

export async function sdkFloor(samples: number, gapMs: number): Promise<SdkFloor> {
  return {
    gap_ms: gapMs,
    sse: await floorOnce(false, samples, gapMs),
    json: await floorOnce(true, samples, gapMs),
  };
}
