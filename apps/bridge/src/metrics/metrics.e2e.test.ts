// /metrics after an end-to-end run: a real `overlay-companion serve --desktop local
// --headless-viewer --mode autopilot` (Xvnc desktop, embedded gateway, headless Chromium viewer),
// a real MCP client making calls that succeed and one the policy denies, the desktop repainted
// from outside (xsetroot) so frames flow, then a scrape from loopback (the operator opted in with
// OC_METRICS_OPEN_LOOPBACK=1): every named series is there with the counts this run produced
// (the tunnel's in whole steps, see coarseTally.ts), and nothing secret is in it.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  printedDesktop,
  scriptedServeEnv,
  startServe,
  type CliProcess,
} from '../headless/testing/cliProcess.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { TUNNEL_BYTES_STEP, TUNNEL_FRAMES_STEP, TUNNEL_PUBLISH_MS } from './bridgeMetrics.js';

const run = promisify(execFile);

/** `name{labels} value` lines of the Prometheus text format, keyed by `name{labels}`. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) out.set(match[1], Number(match[2]));
  }
  return out;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('/metrics after an end-to-end run', () => {
  let dataDir: string;
  let cli: CliProcess;
  let url: string;
  let mcpUrl: string;
  let xEnv: NodeJS.ProcessEnv;
  let client: Client | undefined;
  const scripted = scriptedServeEnv();

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oc-metrics-e2e-'));
    const started = await startServe(
      ['--headless-viewer', '--mode', 'autopilot', '--port', '0', '--data-dir', dataDir],
      { ...scripted.env, OC_METRICS_OPEN_LOOPBACK: '1' },
    );
    ({ cli, url, mcpUrl } = started);
    ({ xEnv } = printedDesktop(cli.stdout()));
  }, 90_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await cli?.shutdown();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('has every named series, counting the calls, frames and bytes of the run', async () => {
    ({ client } = await connectClient({ mcpUrl }, { token: scripted.token }));
    // The headless viewer joins a moment after the banner: wait until it answers.
    const deadline = Date.now() + 40_000;
    let info = await call(client, 'get_display_info');
    while (info.isError === true && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      info = await call(client, 'get_display_info');
    }
    expect(info.isError, JSON.stringify(info.content)).not.toBe(true);
    const shot = await call(client, 'take_screenshot', { max_dimension: 256 });
    expect(shot.isError, JSON.stringify(shot.content)).not.toBe(true);
    const overlay = await call(client, 'draw_overlay', { x: 10, y: 10, width: 50, height: 20 });
    expect(overlay.isError).not.toBe(true);
    expect((await call(client, 'click_at', { x: 5, y: 5 })).isError).not.toBe(true);
    // The clipboard-read toggle starts off: denied by the policy.
    expect((await call(client, 'get_clipboard')).isError).toBe(true);
    // A repaint of the whole desktop from outside makes the gateway encode and send frames.
    await run('xsetroot', ['-solid', '#2a6f97'], { env: xEnv });
    await new Promise((resolve) => setTimeout(resolve, 1500));

    // The tunnel's series are published at most every TUNNEL_PUBLISH_MS: scrape until they are.
    let text = '';
    const published = Date.now() + TUNNEL_PUBLISH_MS + 5000;
    do {
      const response = await fetch(new URL('metrics', url));
      expect(response.status).toBe(200);
      text = await response.text();
      if ((samples(text).get('oc_tunnel_bytes_total{direction="to_browser"}') ?? 0) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    } while (Date.now() < published);
    // The gateway's frames are published the same way, in whole steps: paint more than a step's
    // worth of frames, then scrape until they are out.
    for (let i = 0; i < 2 * TUNNEL_FRAMES_STEP; i += 1) {
      await run('xsetroot', ['-solid', i % 2 === 0 ? '#97602a' : '#2a6097'], { env: xEnv });
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    const gatewayOut = Date.now() + TUNNEL_PUBLISH_MS + 5000;
    do {
      text = await (await fetch(new URL('metrics', url))).text();
      if ((samples(text).get('oc_gateway_frames_total') ?? 0) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    } while (Date.now() < gatewayOut);
    for (const secret of [scripted.token, scripted.password]) expect(text).not.toContain(secret);
    const s = samples(text);
    const value = (key: string): number => {
      const v = s.get(key);
      if (v === undefined) throw new Error(`no sample ${key} in:\n${text}`);
      return v;
    };
    expect(value('oc_tool_calls_total{tool="take_screenshot",outcome="ok"}')).toBe(1);
    expect(value('oc_tool_calls_total{tool="draw_overlay",outcome="ok"}')).toBe(1);
    expect(value('oc_tool_calls_total{tool="click_at",outcome="ok"}')).toBe(1);
    expect(value('oc_tool_calls_total{tool="get_clipboard",outcome="permission_denied"}')).toBe(1);
    expect(value('oc_tool_calls_total{tool="get_display_info",outcome="ok"}')).toBe(1);
    expect(value('oc_tool_call_duration_seconds_count{tool="take_screenshot"}')).toBe(1);
    expect(value('oc_tool_call_duration_seconds_bucket{le="+Inf",tool="click_at"}')).toBe(1);
    expect(value('oc_tool_call_duration_seconds_sum{tool="take_screenshot"}')).toBeGreaterThan(0);
    expect(value('oc_pending_approvals')).toBe(0);
    expect(value('oc_viewers_connected')).toBeGreaterThanOrEqual(1);
    expect(value('oc_mcp_sessions')).toBe(1);
    expect(value('oc_tunnels_open')).toBeGreaterThanOrEqual(1);
    // The tunnel's series move in whole steps, at most every TUNNEL_PUBLISH_MS (this run is
    // longer than that by the time of this scrape).
    expect(value('oc_tunnel_frames_total') % TUNNEL_FRAMES_STEP).toBe(0);
    expect(value('oc_tunnel_frames_per_second')).toBeGreaterThanOrEqual(0);
    expect(value('oc_tunnel_bytes_total{direction="to_browser"}')).toBeGreaterThan(10_000);
    expect(value('oc_tunnel_bytes_total{direction="to_browser"}') % TUNNEL_BYTES_STEP).toBe(0);
    // The click and the frame acknowledgements went to the desktop, but less than a step's worth
    // may still be held back.
    expect(value('oc_tunnel_bytes_total{direction="to_desktop"}') % TUNNEL_BYTES_STEP).toBe(0);
    expect(value('oc_gateway_frames_total')).toBeGreaterThan(0);
    expect(value('oc_gateway_frames_total') % TUNNEL_FRAMES_STEP).toBe(0);
    expect(value('oc_gateway_frame_encode_seconds_count')).toBe(value('oc_gateway_frames_total'));
    expect(value('oc_gateway_frame_encode_seconds_sum')).toBeGreaterThan(0);
    expect(value('oc_gateway_frames_per_second')).toBeGreaterThan(0);
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(0);

    const ready = await fetch(new URL('readyz', url));
    expect([ready.status, await ready.text()]).toEqual([200, 'ready']);
  }, 90_000);
});
