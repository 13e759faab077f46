// The gauges read at scrape time, against a real bridge with scripted viewer windows and a real
// MCP client: viewers connected, approvals the control window announces as waiting, MCP sessions;
// tool names outside the tool list counted as "unknown" (bounded labels); the frame-rate window;
// the tunnel's series published coarsely, so single keys typed never show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import {
  BridgeMetrics,
  TUNNEL_BYTES_STEP,
  TUNNEL_FRAMES_STEP,
  TUNNEL_PUBLISH_MS,
} from './bridgeMetrics.js';
import { CoarseTally } from './coarseTally.js';

async function sample(metrics: BridgeMetrics, series: string): Promise<number | undefined> {
  const { body } = await metrics.scrape();
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function until(metrics: BridgeMetrics, series: string, value: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const current = await sample(metrics, series);
    if (current === value) return;
    if (Date.now() - started > 5000) throw new Error(`${series} stayed ${current}, not ${value}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('bridge metrics', () => {
  const metrics = new BridgeMetrics({ processMetrics: false });
  let bridge: TestBridge;
  beforeAll(async () => {
    bridge = await startTestBridge({ metrics });
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('reads viewers, approvals waiting and MCP sessions from the bridge at scrape time', async () => {
    expect(await sample(metrics, 'oc_viewers_connected')).toBe(0);
    const control = await ScriptedViewer.connect(bridge);
    const mirror = await ScriptedViewer.connect(bridge);
    const { client, transport } = await connectClient(bridge);
    try {
      await until(metrics, 'oc_viewers_connected', 2);
      expect(await sample(metrics, 'oc_mcp_sessions')).toBe(1);
      control.send({
        type: 'approvals_waiting',
        requests: [
          { title: 'Click with the left button', deadline_in_ms: 20_000 },
          { title: 'Type "hello"', deadline_in_ms: 25_000 },
        ],
      });
      await until(metrics, 'oc_pending_approvals', 2);
      control.send({ type: 'approvals_waiting', requests: [] });
      await until(metrics, 'oc_pending_approvals', 0);

      await callTool(client, 'no_such_tool_xyz');
      await callTool(client, 'get_clipboard');
      const { body } = await metrics.scrape();
      expect(body).toContain('oc_tool_calls_total{tool="unknown",outcome="invalid_parameters"} 1');
      expect(body).toContain(
        'oc_tool_calls_total{tool="get_clipboard",outcome="permission_denied"} 1',
      );
      expect(body).not.toContain('no_such_tool_xyz');
    } finally {
      await transport.terminateSession(); // DELETE /mcp ends the session
      await client.close();
      await mirror.close();
      await control.close();
    }
    await until(metrics, 'oc_viewers_connected', 0);
    await until(metrics, 'oc_mcp_sessions', 0);
  });
});

describe('tunnel series, published coarsely', () => {
  it('hide single keys: whole steps, at most once per interval, the rest carried over', async () => {
    let now = 1_000_000;
    const coarse = new BridgeMetrics({ processMetrics: false, now: () => now });
    const read = async (series: string) => {
      const { body } = await coarse.scrape();
      const line = body.split('\n').find((l) => l.startsWith(`${series} `));
      return Number(line?.slice(series.length + 1));
    };
    const toDesktop = 'oc_tunnel_bytes_total{direction="to_desktop"}';
    for (let key = 0; key < 200; key++) {
      coarse.tunnelTraffic('to_desktop', 38);
      coarse.tunnelFrame();
      now += 40;
      expect(await read(toDesktop)).toBe(0);
    }
    now += TUNNEL_PUBLISH_MS;
    // 200 × 38 = 7600 bytes: one whole step published, 3504 carried over.
    expect(await read(toDesktop)).toBe(TUNNEL_BYTES_STEP);
    expect(await read('oc_tunnel_frames_total')).toBe(3 * TUNNEL_FRAMES_STEP);
    coarse.tunnelTraffic('to_desktop', 600);
    now += TUNNEL_PUBLISH_MS - 1;
    expect(await read(toDesktop)).toBe(TUNNEL_BYTES_STEP);
    now += 1;
    expect(await read(toDesktop)).toBe(2 * TUNNEL_BYTES_STEP);
  });

  it("hide the gateway's frames per key too: its counter, rate and encode times", async () => {
    let now = 1_000_000;
    const coarse = new BridgeMetrics({ processMetrics: false, now: () => now });
    const read = async (series: string) => {
      const { body } = await coarse.scrape();
      const line = body.split('\n').find((l) => l.startsWith(`${series} `));
      return Number(line?.slice(series.length + 1));
    };
    for (let key = 0; key < 100; key++) {
      coarse.gatewayFrame(2); // one echoed character: one frame
      now += 40;
      expect(await read('oc_gateway_frames_total')).toBe(0);
      expect(await read('oc_gateway_frame_encode_seconds_count')).toBe(0);
    }
    now += TUNNEL_PUBLISH_MS;
    // 100 frames: one whole step published, 36 carried over, the encode times with them.
    expect(await read('oc_gateway_frames_total')).toBe(TUNNEL_FRAMES_STEP);
    expect(await read('oc_gateway_frame_encode_seconds_count')).toBe(TUNNEL_FRAMES_STEP);
    expect(await read('oc_gateway_frames_per_second')).toBeGreaterThan(0);
  });

  it('CoarseTally: nothing within the interval, whole steps after it', () => {
    let now = 0;
    const tally = new CoarseTally(10, 1000, () => now);
    tally.add(25);
    expect(tally.take()).toBeUndefined();
    now = 1000;
    expect(tally.take()).toBe(20);
    tally.add(4);
    now = 2000;
    expect(tally.take()).toBe(0);
    tally.add(1);
    now = 3000;
    expect(tally.take()).toBe(10);
  });
});
