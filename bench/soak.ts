// Memory under a long MCP load: 20 sessions × 5 take_screenshot calls per second against the real
// stack (mcpStack.ts: serve with sign-in and audit, a local desktop, the viewer page in headless
// Chromium), for `minutes` (the issue's run is 10: `npm run bench -- --only soak
// --soak-minutes 10`). Every `sampleSeconds` the bridge's RSS is read from /proc and its heap
// measured right after a full collection, through the inspector it was started with (DevTools
// protocol: HeapProfiler.collectGarbage, Runtime.getHeapUsage). Reports both as MB/min slopes
// after the warm-up, with the call counts, errors and latency.
import { readFile } from 'node:fs/promises';
import CDP from 'chrome-remote-interface';
import { slopeMbPerMin, type MemorySample } from '../apps/bridge/src/mcp/testing/memoryTrend.js';
import { sleep } from './mcpClient.js';
import { hammer, type LoadResults } from './mcpLoad.js';
import { startMcpStack } from './mcpStack.js';

export interface MemoryTrend {
  start_mb: number;
  end_mb: number;
  /** Least squares slope after warm-up. */
  slope_mb_per_min: number;
}

export interface SoakResults {
  load: LoadResults;
  warm_up_s: number;
  samples: number;
  rss: MemoryTrend;
  heap_after_gc: MemoryTrend;
  /** The target: heap after GC and RSS grow less than 1 MB/min after warm-up. */
  target_mb_per_min: number;
  met: boolean;
}

const INSPECTOR_LINE = /Debugger listening on (ws:\/\/\S+)/;
const MB = 1024 * 1024;

async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`No VmRSS for process ${pid}: has the bridge exited?`);
  return Number(kb) * 1024;
}

function trend(samples: readonly MemorySample[]): MemoryTrend {
  const mb = (bytes: number | undefined) => Math.round(((bytes ?? Number.NaN) / MB) * 10) / 10;
  return {
    start_mb: mb(samples[0]?.bytes),
    end_mb: mb(samples.at(-1)?.bytes),
    slope_mb_per_min: slopeMbPerMin(samples),
  };
}

export async function benchSoak(options: {
  minutes: number;
  sessions?: number;
  perSessionRate?: number;
  sampleSeconds?: number;
  log: (line: string) => void;
}): Promise<SoakResults> {
  const sessions = options.sessions ?? 20;
  const perSessionRate = options.perSessionRate ?? 5;
  const sampleMs = (options.sampleSeconds ?? 10) * 1000;
  // JIT, the first screenshots and the session set-up settle in the first minute or so.
  const warmUpMs = Math.min(60_000, (options.minutes * 60_000) / 4);
  const stack = await startMcpStack({ nodeArgs: ['--inspect=127.0.0.1:0'] });
  let inspector: CDP.Client | undefined;
  try {
    const url = INSPECTOR_LINE.exec(stack.output())?.[1];
    if (url === undefined) throw new Error('The bridge printed no inspector URL.');
    inspector = await CDP({ target: url, local: true });
    const { HeapProfiler, Runtime } = inspector;
    const heapAfterGc = async () => {
      await HeapProfiler.collectGarbage();
      return (await Runtime.getHeapUsage()).usedSize;
    };

    const rss: MemorySample[] = [];
    const heap: MemorySample[] = [];
    let running = true;
    const started = performance.now();
    const sampling = (async () => {
      while (running) {
        await sleep(sampleMs);
        const atMs = performance.now() - started;
        if (atMs < warmUpMs || !running) continue;
        heap.push({ atMs, bytes: await heapAfterGc() });
        rss.push({ atMs, bytes: await rssBytes(stack.bridgePid) });
        const last = (samples: MemorySample[]) => Math.round((samples.at(-1)?.bytes ?? 0) / MB);
        options.log(
          `bench: soak ${Math.round(atMs / 1000)} s: RSS ${last(rss)} MB, heap after GC ${last(heap)} MB`,
        );
      }
    })();
    const load = await hammer({
      mcpUrl: stack.mcpUrl,
      token: stack.token,
      sessions,
      seconds: options.minutes * 60,
      perSessionRate,
      tool: 'take_screenshot',
      args: { full_screen: true },
    }).finally(() => {
      running = false;
    });
    await sampling;
    const rssTrend = trend(rss);
    const heapTrend = trend(heap);
    const target = 1;
    return {
      load,
      warm_up_s: warmUpMs / 1000,
      samples: heap.length,
      rss: rssTrend,
      heap_after_gc: heapTrend,
      target_mb_per_min: target,
      met:
        load.errors === 0 &&
        heapTrend.slope_mb_per_min < target &&
        rssTrend.slope_mb_per_min < target,
    };
  } finally {
    await inspector?.close().catch(() => undefined);
    await stack.stop();
  }
}
