// Where one input call's wall time goes, leg by leg: the bench client stamps the MCP request and
// its answer, and the viewer page stamps (on the same epoch clock) the tool_call arriving on
// /ws/viewer, the Guacamole instructions it then sends on the desktop's tunnel (the input, then
// the receipt request), the receipt's answer arriving, and the tool_result leaving. Prints the
// p50 of each leg:
//   to_viewer   MCP request → tool_call in the page (MCP SDK, policy, audit, relay, the socket)
//   to_tunnel   tool_call → the input on the tunnel (the page's dispatch, policy, AI pointer)
//   receipt     the receipt request → its answer (tunnel → gateway → Xvnc fence and back)
//   to_result   receipt answer → tool_result sent
//   back        tool_result → MCP answer at the client
// Not part of `npm run bench` (it only explains the bench's round trip):
//   OC_GUACD=/opt/guacd-1.6.0/sbin/guacd npx tsx --conditions=overlay-source bench/mcpTrace.ts [--tool mouse_move] [--calls 200]
// With --idle-trace <s> it first traces the idle page (nothing called for s seconds) and prints
// its main-thread JavaScript ms/s and the functions its timers ran: what every call competes with.
import { parseArgs } from 'node:util';
import { mouseMoveArgs } from './mcp.js';
import { callOk, closeHttp, connectHttp, now, sleep } from './mcpClient.js';
import { drainViewerSamples, startMcpStack } from './mcpStack.js';
import { summarize } from './stats.js';
import type { CdpPage } from './cdpBrowser.js';

const { values } = parseArgs({
  options: {
    tool: { type: 'string', default: 'mouse_move' },
    calls: { type: 'string', default: '200' },
    /** Also print what the tunnel brought the page during the last few calls. */
    'show-tunnel': { type: 'boolean', default: false },
    /** Also trace Chromium (DevTools timeline) over that many calls and list where it spent time. */
    'chromium-trace': { type: 'string', default: '0' },
    /**
     * Trace Chromium for that many seconds with no calls (an AI client connected, the desktop
     * still) and print the viewer page's main-thread JavaScript per second and its timer tasks.
     */
    'idle-trace': { type: 'string', default: '0' },
  },
});
const tool = values.tool;
const calls = Number(values.calls);
/** Input calls are limited to 10 a second per session. */
const GAP_MS = 130;

/**
 * Page script: stamps the input and receipt requests sent on the desktop's tunnel socket (found
 * through WebSocket.prototype.send, which the tunnel's socket uses) and the receipt answers it
 * receives. The viewer socket's tool_call and tool_result are stamped by the bench's own page
 * script (mcpStack.ts VIEWER_TIMING).
 */
const PAGE_TRACE = `(() => {
  const stamps = [];
  window.__ocTrace = stamps;
  window.__ocTunnelIn = [];
  const at = () => performance.timeOrigin + performance.now();
  const hooked = new WeakSet();
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    const url = String(this.url);
    if (typeof data === 'string') {
      if (url.includes('tunnel')) {
        if (data.includes('oc-receipt')) stamps.push({ at: at(), kind: 'receipt_sent' });
        else if (data.includes('5.mouse')) stamps.push({ at: at(), kind: 'input_sent' });
      }
    }
    if (!hooked.has(this)) {
      hooked.add(this);
      this.addEventListener('message', (event) => {
        if (typeof event.data !== 'string') return;
        if (!url.includes('tunnel')) return;
        if (event.data.includes('oc-receipt')) stamps.push({ at: at(), kind: 'receipt_answered' });
        else window.__ocTunnelIn.push({ at: at(), head: event.data.slice(0, 80), bytes: event.data.length });
      });
    }
    return send.call(this, data);
  };
})()`;

interface TraceEvent {
  name: string;
  cat?: string;
  dur?: number;
  ts?: number;
  ph: string;
  pid: number;
  tid: number;
  args?: {
    name?: string;
    data?: { functionName?: string; url?: string; lineNumber?: number; columnNumber?: number };
  };
}

/** Chromium's timeline events over `run` (DevTools Tracing, reported as they come). */
async function traceChromium(page: CdpPage, run: () => Promise<void>): Promise<TraceEvent[]> {
  const { Tracing } = page.client;
  const events: TraceEvent[] = [];
  Tracing.dataCollected(({ value }) => events.push(...(value as TraceEvent[])));
  const complete = new Promise<void>((resolve) => Tracing.tracingComplete(() => resolve()));
  await Tracing.start({
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8,blink,cc,gpu,viz',
    transferMode: 'ReportEvents',
  });
  await run();
  await Tracing.end();
  await complete;
  return events;
}

/**
 * The idle page's cost: top-level tasks on the renderers' main threads (CrRendererMain) over
 * `seconds`, the JavaScript in them (FunctionCall / TimerFire / FireAnimationFrame /
 * EventDispatch, outermost only), and which functions the timers ran.
 */
function printIdle(events: readonly TraceEvent[], seconds: number): void {
  const main = new Set<string>();
  for (const e of events)
    if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      main.add(`${e.pid}:${e.tid}`);
  const JS = new Set(['FunctionCall', 'TimerFire', 'FireAnimationFrame', 'EventDispatch']);
  let tasks = 0;
  let taskUs = 0;
  let jsUs = 0;
  // Outermost JS events only: complete events on one thread nest, so skip those inside the last
  // counted one's span.
  const sorted = events
    .filter((e) => e.ph === 'X' && e.dur !== undefined && main.has(`${e.pid}:${e.tid}`))
    .sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0) || (b.dur ?? 0) - (a.dur ?? 0));
  const jsEnd = new Map<string, number>();
  // The outermost JS event of each thread now, named after the first function it ran (a
  // TimerFire names no function itself: the FunctionCall nested in it does).
  const outermost: Array<{ name: string; us: number; where: string | undefined }> = [];
  const open = new Map<string, (typeof outermost)[number]>();
  const describe = (e: TraceEvent) => {
    const data = e.args?.data;
    if (data?.functionName === undefined) return undefined;
    const file =
      String(data.url ?? '')
        .split('/')
        .pop() ?? '';
    return `${data.functionName || '(anonymous)'} ${file}:${data.lineNumber ?? ''}:${data.columnNumber ?? ''}`;
  };
  for (const e of sorted) {
    const ts = e.ts ?? 0;
    const key = `${e.pid}:${e.tid}`;
    if (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') {
      tasks += 1;
      taskUs += e.dur!;
    }
    if (!JS.has(e.name)) continue;
    if (ts < (jsEnd.get(key) ?? 0)) {
      const current = open.get(key);
      if (current !== undefined && current.where === undefined) current.where = describe(e);
      continue;
    }
    jsEnd.set(key, ts + e.dur!);
    jsUs += e.dur!;
    const entry = { name: e.name, us: e.dur!, where: describe(e) };
    outermost.push(entry);
    open.set(key, entry);
  }
  const byFunction = new Map<string, { count: number; us: number }>();
  for (const { name, us, where } of outermost) {
    const label = `${name} ${where ?? ''}`;
    const entry = byFunction.get(label) ?? { count: 0, us: 0 };
    entry.count += 1;
    entry.us += us;
    byFunction.set(label, entry);
  }
  console.log(
    `idle ${seconds} s: renderer main-thread tasks ${(tasks / seconds).toFixed(1)}/s ` +
      `${(taskUs / 1000 / seconds).toFixed(2)} ms/s; JavaScript ${(jsUs / 1000 / seconds).toFixed(2)} ms/s`,
  );
  for (const [where, { count, us }] of [...byFunction]
    .sort((a, b) => b[1].us - a[1].us)
    .slice(0, 15))
    console.log(
      `  ${(us / 1000 / seconds).toFixed(3).padStart(8)} ms/s  ${(count / seconds).toFixed(2).padStart(5)}/s  ${where}`,
    );
}

interface Stamp {
  at: number;
  kind: 'input_sent' | 'receipt_sent' | 'receipt_answered';
}

const stack = await startMcpStack();
try {
  await stack.page.evaluate(PAGE_TRACE);
  const client = await connectHttp(stack.mcpUrl, stack.token, 'oc-trace');
  const idle = Number(values['idle-trace']);
  if (idle > 0) {
    // One call first, so the page holds what a page in use holds (the AI client, its pointer).
    await callOk(client, tool, mouseMoveArgs(0));
    await sleep(2_000);
    printIdle(
      await traceChromium(stack.page, async () => {
        await sleep(idle * 1000);
      }),
      idle,
    );
  }
  // The viewer's socket is hooked on its first send (a warm-up call answers on it).
  for (let i = 0; i < 20; i++) {
    await callOk(client, tool, mouseMoveArgs(i));
    await sleep(GAP_MS);
  }
  const legs: Record<string, number[]> = {
    total: [],
    to_viewer: [],
    to_tunnel: [],
    receipt: [],
    to_result: [],
    back: [],
  };
  for (let i = 0; i < calls; i++) {
    await stack.page.evaluate('window.__ocTrace.splice(0).length');
    await drainViewerSamples(stack.page);
    const start = now();
    await callOk(client, tool, mouseMoveArgs(i));
    const end = now();
    const stamps = await stack.page.evaluate<Stamp[]>('window.__ocTrace.splice(0)');
    const first = (kind: Stamp['kind']) => stamps.find((s) => s.kind === kind)?.at;
    const viewer = (await drainViewerSamples(stack.page))[0];
    const got = viewer?.receivedAt;
    const input = first('input_sent');
    const asked = first('receipt_sent');
    const answered = first('receipt_answered');
    const result = viewer?.sentAt;
    legs.total!.push(end - start);
    if (got !== undefined) legs.to_viewer!.push(got - start);
    if (got !== undefined && input !== undefined) legs.to_tunnel!.push(input - got);
    if (asked !== undefined && answered !== undefined) legs.receipt!.push(answered - asked);
    if (answered !== undefined && result !== undefined) legs.to_result!.push(result - answered);
    if (result !== undefined) legs.back!.push(end - result);
    await sleep(GAP_MS);
  }
  if (values['show-tunnel']) {
    await stack.page.evaluate('window.__ocTunnelIn.splice(0).length');
    for (let i = 0; i < 3; i++) {
      await callOk(client, tool, mouseMoveArgs(i));
      await sleep(GAP_MS);
    }
    const seen = await stack.page.evaluate<Array<{ at: number; head: string; bytes: number }>>(
      'window.__ocTunnelIn.splice(0)',
    );
    for (const m of seen) console.log(`${m.at.toFixed(2)} ${m.bytes} ${JSON.stringify(m.head)}`);
  }
  const traced = Number(values['chromium-trace']);
  if (traced > 0) {
    const events = await traceChromium(stack.page, async () => {
      for (let i = 0; i < traced; i++) {
        await callOk(client, tool, mouseMoveArgs(i));
        await sleep(GAP_MS);
      }
    });
    // Self time is not in the events; complete events' durations, summed per name, per call,
    // top-level ones (per thread, not nested in another of the same thread) only would need the
    // stack: the list below is inclusive, so nested names repeat their parents' time.
    const byName = new Map<string, number>();
    for (const e of events) {
      if (e.ph !== 'X' || e.dur === undefined) continue;
      byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur);
    }
    console.log(`chromium trace over ${traced} calls: inclusive ms per call by event name`);
    for (const [name, us] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 40))
      console.log(`  ${(us / 1000 / traced).toFixed(3).padStart(8)}  ${name}`);
  }
  await closeHttp(client);
  for (const [leg, times] of Object.entries(legs)) {
    const s = summarize(times);
    console.log(
      `${leg.padEnd(10)} p50 ${s.p50.toFixed(2).padStart(6)} ms  mean ${s.mean.toFixed(2).padStart(6)} ms  (${times.length})`,
    );
  }
} finally {
  await stack.stop();
}
