// Where a relayed call's CPU goes in both processes: the bridge started with --cpu-prof and the
// viewer page under the DevTools Profiler, while one MCP session calls draw_overlay paced (as the
// bench's latency loop does) and then 20 sessions call it unthrottled (the throughput loop).
// Prints each process's top frames by self time, per call, and their callers' chain (a flame
// graph read top-down, in text). Not part of `npm run bench` (profiling slows both processes):
//   OC_GUACD=/opt/guacd-1.6.0/sbin/guacd npx tsx --conditions=overlay-source bench/mcpCallProfile.ts [--tool mouse_move] [--paced-only] [--out dir]
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { drawOverlayArgs, mouseMoveArgs } from './mcp.js';
import { callOk, closeHttp, connectHttp, sleep, timeRuns } from './mcpClient.js';
import { hammer } from './mcpLoad.js';
import { startMcpStack } from './mcpStack.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values } = parseArgs({
  options: {
    tool: { type: 'string', default: 'draw_overlay' },
    calls: { type: 'string', default: '1500' },
    seconds: { type: 'string', default: '6' },
    out: { type: 'string' },
    top: { type: 'string', default: '25' },
    /** Only the paced loop (the bench's latency loop): what one call costs on its own. */
    'paced-only': { type: 'boolean', default: false },
  },
});
const tool = values.tool;
const calls = Number(values.calls);
const outDir = values.out ?? mkdtempSync(join(tmpdir(), 'oc-call-profile-'));
const input = tool === 'mouse_move' || tool === 'click_at';
/** Input calls are limited to 10 a second per session: a margin over 100 ms keeps a slow call's
 * successor from meeting an empty bucket on a loaded machine. */
const gapMs = input ? 130 : 11;
const argsOf = (i: number): Record<string, unknown> =>
  tool === 'draw_overlay' ? drawOverlayArgs(i, 500) : mouseMoveArgs(i);

/** A frame's short name: function and file:line, the repo's prefix taken off. */
function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^file:\/\//, '').replace(/^.*?\/(apps|packages|node_modules)\//, '$1/');
  return `${functionName || '(anonymous)'} ${file === '' ? '' : `${file}:${lineNumber + 1}`}`.trim();
}

/** Self time per frame name (ms), and inclusive time per frame name. */
function summarizeProfile(profile: CpuProfile, perCall: number, top: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const name = frameName(node);
    if (name.startsWith('(idle)')) {
      idle += us;
      continue;
    }
    all += us;
    self.set(name, (self.get(name) ?? 0) + us);
    // Inclusive: each distinct frame on the stack once.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = frameName(byId.get(at)!);
      if (seen.has(n)) continue;
      seen.add(n);
      total.set(n, (total.get(n) ?? 0) + us);
    }
  }
  const ms = (us: number) => (us / 1000 / perCall).toFixed(3);
  const lines = [
    `busy ${ms(all)} ms/call (idle ${ms(idle)}), ${perCall} calls`,
    'self time, ms/call:',
  ];
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`  ${ms(us).padStart(7)}  ${name}`);
  lines.push('inclusive time, ms/call:');
  for (const [name, us] of [...total].sort((a, b) => b[1] - a[1]).slice(0, top * 2))
    lines.push(`  ${ms(us).padStart(7)}  ${name}`);
  return lines;
}

const stack = await startMcpStack({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${outDir}`] });
let made = 0;
let viewerProfile: CpuProfile | undefined;
try {
  const client = await connectHttp(stack.mcpUrl, stack.token, 'oc-profile');
  // Warm up at the same pace as the timed loop: input calls are limited to 10 a second.
  await timeRuns(0, 30, (i) => callOk(client, tool, argsOf(i)), gapMs);
  const { Profiler } = stack.page.client;
  await Profiler.enable();
  await Profiler.setSamplingInterval({ interval: 200 });
  await Profiler.start();
  const times = await timeRuns(calls, 0, (i) => callOk(client, tool, argsOf(i)), gapMs);
  made += calls;
  times.sort((a, b) => a - b);
  console.log(`paced ${tool}: p50 ${times[Math.floor(times.length / 2)]?.toFixed(2)} ms`);
  if (!input && !values['paced-only']) {
    await sleep(1000);
    const load = await hammer({
      mcpUrl: stack.mcpUrl,
      token: stack.token,
      sessions: 20,
      seconds: Number(values.seconds),
      tool,
      args: argsOf(0),
    });
    made += load.calls + load.errors + load.rate_limited + 20;
    console.log(`20 sessions ${tool}: ${load.calls_per_s} calls/s, ${load.errors} errors`);
  }
  viewerProfile = (await Profiler.stop()).profile as unknown as CpuProfile;
  await closeHttp(client);
} finally {
  await stack.stop();
}
const bridgeFile = readdirSync(outDir).find((f) => f.endsWith('.cpuprofile'));
const top = Number(values.top);
const lines = [`# ${tool}, profiles in ${outDir}`, '## bridge'];
if (bridgeFile !== undefined) {
  const profile = JSON.parse(readFileSync(join(outDir, bridgeFile), 'utf8')) as CpuProfile;
  lines.push(...summarizeProfile(profile, made, top));
}
if (viewerProfile !== undefined) {
  writeFileSync(join(outDir, 'viewer.cpuprofile'), JSON.stringify(viewerProfile));
  lines.push('## viewer page (main thread)', ...summarizeProfile(viewerProfile, made, top));
}
writeFileSync(join(outDir, 'summary.txt'), lines.join('\n'));
console.log(lines.join('\n'));
