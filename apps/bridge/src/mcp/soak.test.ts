// Soak: a real bridge under steady MCP load for about a minute keeps flat memory. Ten SDK
// clients, each on its own session, call draw_overlay and take_screenshot (a ~48 KB image, the
// size that leaked per call before boundedTransport.ts) at a paced rate, answered by a SCRIPTED
// VIEWER — the screenshots as the real viewer sends them, one binary frame of raw image bytes
// (imageFrame.ts) that the bridge turns into the MCP result's base64. Three measures: the SDK
// transports' own per-request entries, read directly (bounded by the calls in flight, none once
// the load stops: exact, so never flaky); this process's heap after a full collection; and the
// ArrayBuffers (Buffers: the frames, their base64) still alive after it, native memory the heap
// does not count. Each slope after warm-up must stay under a bound far below what a leak of one
// image or answer per call gives (one image frame kept per screenshot: 31 MB/min of ArrayBuffers
// measured) and far above the noise of a loaded two-core machine (0.2 MB flat measured). The soak bench (bench/soak.ts) watches the whole bridge's RSS for 10 minutes;
// what it found growing there, SQLite's page cache, has its own exact test
// (store/sqliteMemory.test.ts).
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  encodeImageFrame,
  type ImageAnswerHeader,
  type TakeScreenshotResult,
} from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransportBacklog } from './boundedTransport.js';
import { callTool } from './testing/calls.js';
import {
  connectClient,
  screenshotResult,
  startTestBridge,
  type TestBridge,
} from './testing/fixtures.js';
import { heapAfterGc, slopeMbPerMin, type MemorySample } from './testing/memoryTrend.js';
import { ScriptedViewer } from './testing/scriptedViewer.js';

const SESSIONS = 10;
/** Calls each session starts per second. */
const RATE = 3;
const WARM_UP_MS = 15_000;
const MEASURE_MS = 45_000;
const SAMPLE_EVERY_MS = 3_000;
/** The heap slope allowed after warm-up. */
const MAX_HEAP_SLOPE_MB_PER_MIN = 6;
/** The slope allowed for ArrayBuffers after a collection. */
const MAX_BUFFERS_SLOPE_MB_PER_MIN = 3;
/** 36 KB of image bytes, ~48 KB as base64, like a real desktop screenshot answer. */
const IMAGE = randomBytes(36 * 1024);
const { data: _data, ...SCREENSHOT_META } = screenshotResult(IMAGE.toString('base64'));

/** The real viewer's answer to a take_screenshot: one binary frame with the image's bytes. */
function imageAnswer(id: string): Uint8Array {
  const header: ImageAnswerHeader = {
    type: 'tool_result_image',
    id,
    result: { ...(SCREENSHOT_META as TakeScreenshotResult), byte_length: IMAGE.length },
  };
  return encodeImageFrame(header, IMAGE);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

describe('soak: MCP calls for a minute', () => {
  let bridge: TestBridge;
  let viewer: ScriptedViewer;
  const clients: Client[] = [];

  beforeAll(async () => {
    bridge = await startTestBridge({ initialMode: 'autopilot' });
    viewer = await ScriptedViewer.connect(bridge);
    viewer.on('take_screenshot', (call) => {
      viewer.sendBinary(imageAnswer(call.id));
      return 'ignore';
    });
    viewer.on('draw_overlay', (call) => {
      const { x, y, width, height } = call.args as Record<string, number>;
      return {
        result: { overlay_id: `ov_${call.id}`, bounds: { x, y, width, height }, monitor_index: 0 },
      };
    });
    for (let i = 0; i < SESSIONS; i++) clients.push((await connectClient(bridge)).client);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await viewer.close();
    await bridge.close();
  });

  it(`${SESSIONS} sessions × ${RATE} calls/s: no per-call entry outlives its call, heap and ArrayBuffers flat after warm-up`, async () => {
    let calls = 0;
    const errors: string[] = [];
    const started = performance.now();
    const deadline = started + WARM_UP_MS + MEASURE_MS;
    const interval = 1000 / RATE;

    const load = clients.map(async (client, i) => {
      let next = started + (interval * i) / SESSIONS;
      for (let n = 0; performance.now() < deadline; n++) {
        await sleep(next - performance.now());
        const result =
          n % 2 === 0
            ? await callTool(client, 'take_screenshot', { full_screen: true })
            : await callTool(client, 'draw_overlay', { x: n % 500, y: 10, width: 40, height: 30 });
        calls++;
        if (result.isError === true && errors.length < 5) errors.push(JSON.stringify(result));
        // A slow stretch (GC, a loaded machine) is not made up with a burst afterwards.
        next = Math.max(next + interval, performance.now());
      }
    });

    const heap: MemorySample[] = [];
    const buffers: MemorySample[] = [];
    let worst: TransportBacklog = { streams: 0, requests: 0, responses: 0 };
    let loading = true;
    const sampling = (async () => {
      while (loading) {
        await sleep(SAMPLE_EVERY_MS);
        // What the scripted viewer recorded is test bookkeeping, not the bridge's.
        viewer.received.splice(0);
        const backlog = bridge.desktopControl.sessions.backlog();
        worst = {
          streams: Math.max(worst.streams, backlog.streams),
          requests: Math.max(worst.requests, backlog.requests),
          responses: Math.max(worst.responses, backlog.responses),
        };
        const atMs = performance.now() - started;
        if (atMs >= WARM_UP_MS) {
          heap.push({ atMs, bytes: heapAfterGc() });
          buffers.push({ atMs, bytes: process.memoryUsage().arrayBuffers });
        }
      }
    })();

    await Promise.all(load);
    loading = false;
    await sampling;

    const seconds = (performance.now() - started) / 1000;
    const slope = slopeMbPerMin(heap);
    const buffersSlope = slopeMbPerMin(buffers);
    const callsPerMinute = (calls / seconds) * 60;
    console.log(
      `soak: ${calls} calls in ${seconds.toFixed(0)} s (${(calls / seconds).toFixed(1)}/s), ` +
        `heap after GC ${((heap[0]?.bytes ?? 0) / 2 ** 20) | 0} → ${((heap.at(-1)?.bytes ?? 0) / 2 ** 20) | 0} MB, ` +
        `slope ${slope} MB/min (${((slope * 1024) / Math.max(1, callsPerMinute)).toFixed(2)} KB per call), ` +
        `ArrayBuffers after GC ${((buffers[0]?.bytes ?? 0) / 2 ** 20).toFixed(1)} → ${((buffers.at(-1)?.bytes ?? 0) / 2 ** 20).toFixed(1)} MB, slope ${buffersSlope} MB/min, ` +
        `most entries in flight ${JSON.stringify(worst)}`,
    );

    expect(errors).toEqual([]);
    // Enough load to see a leak: a quarter of the paced rate would still have leaked ~12 MB/min.
    expect(calls).toBeGreaterThan((SESSIONS * RATE * seconds) / 4);
    // Each client waits for its answer before the next call: at most one request per session.
    expect(worst.requests).toBeLessThanOrEqual(SESSIONS);
    expect(worst.streams).toBeLessThanOrEqual(SESSIONS);
    expect(bridge.desktopControl.sessions.backlog()).toEqual({
      streams: 0,
      requests: 0,
      responses: 0,
    });
    expect(heap.length).toBeGreaterThanOrEqual(10);
    expect(slope).toBeLessThan(MAX_HEAP_SLOPE_MB_PER_MIN);
    expect(buffersSlope).toBeLessThan(MAX_BUFFERS_SLOPE_MB_PER_MIN);
  }, 120_000);
});
