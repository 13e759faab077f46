// Memory under a long MCP load: 20 sessions × 5 take_screenshot calls per second against the real
// stack (mcpStack.ts: serve with sign-in and audit, a local desktop, the viewer page in headless
// Chromium), for `minutes` (the issue's run is 10: `npm run bench -- --only soak
// --soak-minutes 10`). Every `sampleSeconds` the bridge's RSS is read from /proc and its heap
// measured right after a full collection, through the inspector it was started with (DevTools
// protocol: HeapProfiler.collectGarbage, Runtime.getHeapUsage). Reports both as MB/min slopes
// after the warm-up, with the call counts, errors and latency — and, to tell where native growth
// comes from, the ArrayBuffers still alive after the collection, the anonymous memory
// (smaps_rollup), the SQLite database beside it (its page cache grows with it up to a bound) and
// the thread count; OC_BENCH_SMAPS_DIR keeps the whole memory map after warm-up and at the end.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import CDP from 'chrome-remote-interface';
import { slopeMbPerMin, type MemorySample } from '../apps/bridge/src/mcp/testing/memoryTrend.js';
import { DATABASE_FILE } from '../apps/bridge/src/store/dataDir.js';
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
  /** ArrayBuffer backing stores (Buffers) still alive after a full collection: native, but JS-owned. */
  array_buffers_after_gc: MemoryTrend;
  /** Anonymous memory (/proc smaps_rollup): malloc's arenas, the V8 heap, thread stacks. */
  anonymous: MemoryTrend;
  /** The bridge's threads at the end (main, V8's, libuv's, encode workers, libvips'). */
  threads: number;
  /**
   * The SQLite database with its WAL: every call appends an audit entry. SQLite's page cache
   * grows with it up to its bound (store/sqlite.ts), so a growing RSS is first compared with it.
   */
  database: MemoryTrend;
  /** The target: heap after GC and RSS grow less than 1 MB/min after warm-up. */
  target_mb_per_min: number;
  met: boolean;
}

const INSPECTOR_LINE = /Debugger listening on (ws:\/\/\S+)/;
const MB = 1024 * 1024;

async function procKb(pid: number, file: string, field: string): Promise<number> {
  const text = await readFile(`/proc/${pid}/${file}`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1];
  if (kb === undefined) throw new Error(`No ${field} for process ${pid}: has the bridge exited?`);
  return Number(kb) * 1024;
}

const rssBytes = (pid: number) => procKb(pid, 'status', 'VmRSS');
const anonymousBytes = (pid: number) => procKb(pid, 'smaps_rollup', 'Anonymous');
/** The bridge's SQLite file and WAL (0 with PostgreSQL), from the --data-dir it was given. */
async function databaseBytes(pid: number): Promise<number> {
  const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
  const dir = args[args.indexOf('--data-dir') + 1];
  if (!args.includes('--data-dir') || dir === undefined) return 0;
  const sizes = await Promise.all(
    ['', '-wal'].map((end) =>
      stat(join(dir, `${DATABASE_FILE}${end}`)).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

const threadCount = async (pid: number) =>
  Number(/^Threads:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

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
    /** Read right after heapAfterGc: Buffers only a collected object still held are gone. */
    const arrayBuffers = async () => {
      const { result } = await Runtime.evaluate({
        expression: 'process.memoryUsage().arrayBuffers',
        returnByValue: true,
      });
      return Number(result.value);
    };

    // With OC_BENCH_SMAPS_DIR set, the bridge's memory map after the warm-up and at the end is
    // copied there, to see which mappings grew (malloc's main heap, a thread's arena, V8's pages).
    const smapsDir = process.env.OC_BENCH_SMAPS_DIR;
    const keepSmaps = async (name: string) => {
      if (smapsDir === undefined) return;
      // Read, not copied: /proc files report a size of 0.
      const smaps = await readFile(`/proc/${stack.bridgePid}/smaps`, 'utf8');
      await writeFile(join(smapsDir, `soak-smaps-${name}.txt`), smaps);
    };
    const rss: MemorySample[] = [];
    const heap: MemorySample[] = [];
    const buffers: MemorySample[] = [];
    const anonymous: MemorySample[] = [];
    const database: MemorySample[] = [];
    let running = true;
    const started = performance.now();
    const sampling = (async () => {
      while (running) {
        await sleep(sampleMs);
        const atMs = performance.now() - started;
        if (atMs < warmUpMs || !running) continue;
        if (heap.length === 0) await keepSmaps('after-warm-up');
        heap.push({ atMs, bytes: await heapAfterGc() });
        buffers.push({ atMs, bytes: await arrayBuffers() });
        rss.push({ atMs, bytes: await rssBytes(stack.bridgePid) });
        anonymous.push({ atMs, bytes: await anonymousBytes(stack.bridgePid) });
        database.push({ atMs, bytes: await databaseBytes(stack.bridgePid) });
        const last = (samples: MemorySample[]) => Math.round((samples.at(-1)?.bytes ?? 0) / MB);
        options.log(
          `bench: soak ${Math.round(atMs / 1000)} s: RSS ${last(rss)} MB (anonymous ${last(anonymous)}), ` +
            `heap after GC ${last(heap)} MB, ArrayBuffers ${last(buffers)} MB, database ${last(database)} MB, ` +
            `${await threadCount(stack.bridgePid)} threads`,
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
    await keepSmaps('end');
    const threads = await threadCount(stack.bridgePid);
    const rssTrend = trend(rss);
    const heapTrend = trend(heap);
    const target = 1;
    return {
      load,
      warm_up_s: warmUpMs / 1000,
      samples: heap.length,
      rss: rssTrend,
      heap_after_gc: heapTrend,
      array_buffers_after_gc: trend(buffers),
      anonymous: trend(anonymous),
      threads,
      database: trend(database),
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
