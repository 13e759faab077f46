// Main-thread work per frame read from Chromium's own trace, for the overlay bench: every task
// the page's main thread ran, wherever it came from (a socket message, a store update, a timer,
// the frame's rAF callbacks, style, layout, paint, commit, garbage collection), summed over each
// frame interval (from one BeginMainFrame to the next). The page's own frame probe
// (overlayPages.ts) times a frame from its start until a message posted in its rAF runs; work
// that runs in a task after that message and before the next frame escapes it — the trace sees
// it. What the painting worker does runs on its own thread and is not counted.
import type { CdpPage } from './cdpBrowser.js';

interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  ts?: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: {
    name?: string;
    data?: {
      functionName?: string;
      url?: string;
      lineNumber?: number;
      /** TracingStartedInBrowser: the frames there are and the renderer process of each. */
      frames?: { frame?: string; processId?: number }[];
      /** FrameCommittedInBrowser: a frame now runs in this renderer process. */
      frame?: string;
      processId?: number;
    };
  };
}

/** A frame interval of the page's main thread and the work in it. */
export interface TracedFrame {
  /** Start (µs, trace clock) and length (ms) of the interval. */
  start: number;
  interval: number;
  /** Main-thread task time inside the interval, in ms. */
  work: number;
  /** With `explain`: the longest pieces of work in it (for finding what made it long). */
  top: string[];
}

const CATEGORIES = [
  'toplevel',
  'cc',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.timeline.frame',
  'v8.execute',
  'blink',
].join(',');

const TASKS = new Set(['ThreadControllerImpl::RunTask', 'RunTask']);
const FRAME_START = new Set(['BeginMainFrame', 'ProxyMain::BeginMainFrame']);

/** Chromium's trace events over `run`. */
export async function traceWhile(page: CdpPage, run: () => Promise<void>): Promise<TraceEvent[]> {
  const { Tracing } = page.client;
  const events: TraceEvent[] = [];
  Tracing.dataCollected(({ value }) => events.push(...(value as TraceEvent[])));
  const complete = new Promise<void>((resolve) => Tracing.tracingComplete(() => resolve()));
  await Tracing.start({ categories: CATEGORIES, transferMode: 'ReportEvents' });
  try {
    await run();
  } finally {
    await Tracing.end();
    await complete;
  }
  return events;
}

function describe(e: TraceEvent): string {
  const data = e.args?.data;
  const where =
    data?.functionName !== undefined
      ? ` ${data.functionName || '(anonymous)'} ${String(data.url ?? '')
          .split('/')
          .pop()}:${data.lineNumber ?? ''}`
      : '';
  return `${e.name}${where} ${((e.dur ?? 0) / 1000).toFixed(1)}ms`;
}

/** The renderer processes the trace says run frame `frameId` (several windows: one each). */
function processesOf(events: readonly TraceEvent[], frameId: string): Set<number> {
  const pids = new Set<number>();
  for (const e of events) {
    const data = e.args?.data;
    if (data === undefined) continue;
    for (const f of data.frames ?? [])
      if (f.frame === frameId && f.processId !== undefined) pids.add(f.processId);
    if (data.frame === frameId && data.processId !== undefined) pids.add(data.processId);
  }
  return pids;
}

/**
 * The frames of a renderer main thread, each with its main-thread task time: the thread of the
 * renderer that runs `frameId` (the page being measured, when other windows run beside it), or
 * without one, the renderer main thread that began the most frames (a worker is another thread).
 */
export function mainThreadFrames(
  events: readonly TraceEvent[],
  options: { explain?: boolean | undefined; frameId?: string } = {},
): TracedFrame[] {
  const explain = options.explain ?? false;
  const pids = options.frameId === undefined ? null : processesOf(events, options.frameId);
  if (pids !== null && pids.size === 0)
    throw new Error(`The trace names no renderer process for frame ${options.frameId}.`);
  const mains = new Set<string>();
  for (const e of events)
    if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      if (pids === null || pids.has(e.pid)) mains.add(`${e.pid}:${e.tid}`);
  const starts = new Map<string, number[]>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (!mains.has(key) || !FRAME_START.has(e.name) || e.ts === undefined) continue;
    if (e.ph !== 'X' && e.ph !== 'B') continue;
    const list = starts.get(key) ?? [];
    list.push(e.ts);
    starts.set(key, list);
  }
  const [thread, frameStarts] = [...starts].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
  if (thread === undefined || frameStarts === undefined) return [];
  // Both frame event names may appear for one frame: one start per frame, 2 ms apart at least.
  const bounds = [...new Set(frameStarts)]
    .sort((a, b) => a - b)
    .filter((t, i, all) => i === 0 || t - (all[i - 1] as number) > 2_000);
  const onThread = events
    .filter((e) => `${e.pid}:${e.tid}` === thread && e.ph === 'X' && e.dur !== undefined)
    .sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0) || (b.dur ?? 0) - (a.dur ?? 0));
  // Outermost tasks only (a RunTask may sit inside ThreadControllerImpl::RunTask).
  const tasks: TraceEvent[] = [];
  let end = -Infinity;
  for (const e of onThread) {
    if (!TASKS.has(e.name)) continue;
    if ((e.ts ?? 0) < end) continue;
    tasks.push(e);
    end = (e.ts ?? 0) + (e.dur ?? 0);
  }
  const frames: TracedFrame[] = [];
  let t = 0;
  for (let i = 0; i + 1 < bounds.length; i++) {
    const from = bounds[i] as number;
    const to = bounds[i + 1] as number;
    while (t < tasks.length && (tasks[t]!.ts ?? 0) + (tasks[t]!.dur ?? 0) <= from) t++;
    let busy = 0;
    const inside: TraceEvent[] = [];
    for (let k = t; k < tasks.length && (tasks[k]!.ts ?? 0) < to; k++) {
      const task = tasks[k]!;
      const s = Math.max(from, task.ts ?? 0);
      const e = Math.min(to, (task.ts ?? 0) + (task.dur ?? 0));
      if (e > s) {
        busy += e - s;
        inside.push(task);
      }
    }
    // What the longest tasks ran: the events nested in them, longest first.
    const top = (explain ? inside : [])
      .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
      .slice(0, 2)
      .flatMap((task) => {
        const s = task.ts ?? 0;
        const e = s + (task.dur ?? 0);
        return onThread
          .filter((n) => n !== task && !TASKS.has(n.name) && (n.ts ?? 0) >= s && (n.ts ?? 0) < e)
          .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
          .slice(0, 5)
          .map(describe);
      });
    frames.push({ start: from, interval: (to - from) / 1000, work: busy / 1000, top });
  }
  return frames;
}
