// `npm run bench [-- --json] [--quick] [--only gateway,viewer,mcp]`: measures the embedded stack
// on this machine and prints medians and p99s (JSON with --json; progress on stderr). Targets
// come from the issues; the numbers are reported, never asserted — speed is not a test.
import { parseArgs } from 'node:util';
import { benchFrames, type FrameResults } from './frame.js';
import { benchMcpSection, type McpSection } from './mcpSection.js';
import { benchPaint, type PaintResults } from './paint.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    // Comma-separated subset of gateway,viewer,mcp (default: all).
    only: { type: 'string', default: 'gateway,viewer,mcp' },
  },
});
const parts = new Set(values.only.split(',').map((part) => part.trim()));

const iterations = values.quick ? 15 : 60;
const log = (line: string) => {
  if (!values.json) console.log(line);
  else console.error(line);
};

const started = Date.now();
let frames: FrameResults | undefined;
let paint: PaintResults | undefined;
let mcp: McpSection | undefined;
if (parts.has('gateway')) {
  log('bench: full-frame decode and encode on a busy 1280x800 desktop…');
  frames = await benchFrames(iterations);
}
if (parts.has('viewer')) {
  log('bench: X change → browser paint through bridge, gateway and headless Chromium…');
  paint = await benchPaint(iterations);
}
if (parts.has('mcp')) {
  log('bench: MCP round trips through the bridge and a headless viewer, and Playwright MCP…');
  mcp = await benchMcpSection({ samples: iterations, loadSeconds: values.quick ? 3 : 6, log });
}

const os = await import('node:os');
const results = {
  machine: { cores: os.cpus().length, node: process.version, load_average: os.loadavg() },
  gateway: frames,
  viewer: paint,
  mcp:
    mcp === undefined
      ? undefined
      : {
          ours: mcp.ours,
          peer: mcp.peer,
          peer_click_without_settle: mcp.peer_click_without_settle,
        },
  ratios: mcp?.ratios,
  targets: {
    full_frame_encode_p50_ms:
      frames === undefined ? undefined : { target: 10, measured: frames.full_frame_encode_ms.p50 },
    change_to_paint_p50_ms:
      paint === undefined ? undefined : { target: 30, measured: paint.change_to_paint_ms.p50 },
    ...mcp?.targets,
  },
  seconds: Math.round((Date.now() - started) / 100) / 10,
};

if (values.json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  console.log(JSON.stringify(results, null, 2));
}
