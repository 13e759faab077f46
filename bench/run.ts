// `npm run bench [-- --json] [--quick] [--only gateway,viewer,mcp,audit,stream,tiles,overlays,
// desktops,soak,recording,site] [--soak-minutes N] [--site-full]`: measures the embedded stack on this machine (and, in `stream`, our
// gateway against Apache guacd) and prints medians and p99s (JSON with --json; progress on
// stderr).
// Targets come from the issues; the numbers are reported, never asserted — speed is not a test.
// The MCP numbers are with sign-in and the audit log on, as serve always runs now.
import { parseArgs } from 'node:util';
import { benchAuditAppend, type AuditResults } from './audit.js';
import { benchDesktops, type DesktopsResults } from './desktops.js';
import { benchFrames, type FrameResults } from './frame.js';
import { benchMcpSection, type McpSection } from './mcpSection.js';
import { benchOverlays, type OverlayResults } from './overlays.js';
import { benchPaint, type PaintResults } from './paint.js';
import { benchRecording, type RecordingResults } from './recording.js';
import { benchSite, DEFAULT_SITE, FULL_SITE, QUICK_SITE, type SiteResults } from './site.js';
import { benchSoak, type SoakResults } from './soak.js';
import { benchStream, type StreamResults } from './stream.js';
import { benchTiles, type TilesResults } from './tiles.js';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    // Comma-separated subset of gateway,viewer,mcp,audit,stream,tiles,overlays,desktops,soak,
    // recording (default: all).
    only: {
      type: 'string',
      default: 'gateway,viewer,mcp,audit,stream,tiles,overlays,desktops,soak,recording,site',
    },
    // The site load run at the size: 20 desktops and AI clients, 10 calls/s, 5 minutes.
    'site-full': { type: 'boolean', default: false },
    // How long the memory soak runs; the run is 10 (default 2, 1 with --quick).
    'soak-minutes': { type: 'string' },
  },
});
const parts = new Set(values.only.split(',').map((part) => part.trim()));

const iterations = values.quick ? 15 : 60;
const log = (line: string) => {
  if (!values.json) console.log(line);
  else console.error(line);
};

/** Runs one section; a section that fails is reported as `{ failed }` and the others still run. */
const failures: Record<string, string> = {};
async function section<T>(name: string, what: string, run: () => Promise<T>) {
  if (!parts.has(name)) return undefined;
  log(`bench: ${what}…`);
  try {
    return await run();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log(`bench: ${name} FAILED: ${message.split('\n')[0] ?? ''}`);
    failures[name] = message.slice(0, 2000);
    return undefined;
  }
}

const started = Date.now();
const frames: { typical: FrameResults; busy: FrameResults } | undefined = await section(
  'gateway',
  'full-frame decode and encode on a typical and a busy 1280x800 desktop',
  () => benchFrames(iterations),
);
const paint: PaintResults | undefined = await section(
  'viewer',
  'X change → browser paint through bridge, gateway and headless Chromium',
  () => benchPaint(iterations),
);
const mcp: McpSection | undefined = await section(
  'mcp',
  'MCP round trips through the bridge and a headless viewer, and Playwright MCP',
  () => benchMcpSection({ samples: iterations, loadSeconds: values.quick ? 3 : 6, log }),
);

const audit: AuditResults | undefined = await section(
  'audit',
  'one audit-log append on the SQLite store (what every tool call now writes)',
  () => benchAuditAppend(iterations * 50),
);

const stream: StreamResults | undefined = await section(
  'stream',
  'streaming: our gateway against guacd on one desktop (paint latency, heavy scrolling)',
  () => benchStream({ samples: values.quick ? 15 : 30, heavySeconds: values.quick ? 3 : 5, log }),
);

const tiles: TilesResults | undefined = await section(
  'tiles',
  'fleet tiles: 20 browsers on one busy desktop, and one on each of 20 small desktops, at full attention and as thumbnails',
  () => benchTiles({ browsers: 20, seconds: values.quick ? 4 : 8, log }),
);

const overlays: OverlayResults | undefined = await section(
  'overlays',
  'overlays at scale: a 1,000-overlay batch to paint, frames with 5,000 changing, a second window',
  () => benchOverlays({ samples: values.quick ? 15 : 40, updateSeconds: values.quick ? 3 : 6 }),
);

const desktops: DesktopsResults | undefined = await section(
  'desktops',
  'desktops: 10 idle sandboxed local desktops, open → first frame on demand, 10 desktops with an AI each',
  () =>
    benchDesktops({
      count: 10,
      idleSeconds: 10,
      openRuns: values.quick ? 3 : 6,
      loadSeconds: values.quick ? 5 : 10,
      rate: 10,
      log,
    }),
);

const soakMinutes = Number(values['soak-minutes'] ?? (values.quick ? 1 : 2));
const soak: SoakResults | undefined = await section(
  'soak',
  `memory: 20 MCP sessions × 5 screenshots/s for ${soakMinutes} min, bridge RSS and heap after GC`,
  () => benchSoak({ minutes: soakMinutes, log }),
);

const recording: RecordingResults | undefined = await section(
  'recording',
  "recording's cost on heavy scrolling: frames and CPU with and without it, bytes per hour",
  () => benchRecording({ heavySeconds: values.quick ? 4 : 8, runs: values.quick ? 1 : 2, log }),
);

const siteSize = values['site-full'] ? FULL_SITE : values.quick ? QUICK_SITE : DEFAULT_SITE;
const site: SiteResults | undefined = await section(
  'site',
  `a site: 3 bridges, 2 gateways, ${String(siteSize.desktops)} desktops and AI clients at ${String(siteSize.callsPerSecond)} calls/s for ${String(siteSize.seconds)} s`,
  () => benchSite(siteSize, log),
);

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
  audit_append: audit?.audit_append_ms,
  stream,
  tiles,
  overlays,
  desktops,
  soak,
  recording,
  site,
  ratios: mcp?.ratios,
  targets: {
    full_frame_encode_p50_ms:
      frames === undefined
        ? undefined
        : {
            target: 10,
            measured: frames.typical.full_frame_encode_ms.p50,
            worst_case_busy_desktop: frames.busy.full_frame_encode_ms.p50,
          },
    change_to_paint_p50_ms:
      paint === undefined ? undefined : { target: 30, measured: paint.change_to_paint_ms.p50 },
    ...mcp?.targets,
    audit_append_p50_ms:
      audit === undefined ? undefined : { target: 0.5, measured: audit.audit_append_ms.p50 },
    ...overlays?.targets,
    open_to_first_frame_ms: desktops?.open_to_first_frame.target,
    desktops_load_errors:
      desktops === undefined
        ? undefined
        : { target: 0, measured: desktops.load.errors, met: desktops.load.errors === 0 },
    twenty_tiles_in_full_viewers_cpu:
      tiles === undefined
        ? undefined
        : {
            target: '< 3',
            measured: tiles.tiles_in_full_viewers_cpu,
            met: tiles.tiles_in_full_viewers_cpu < 3,
          },
    ...recording?.targets,
    site_errors:
      site === undefined ? undefined : { target: 0, measured: site.errors, met: site.errors === 0 },
    site_cross_bridge_added_p50_ms:
      site === undefined
        ? undefined
        : {
            target: 1,
            measured: site.cross_added_p50_ms,
            met: site.cross_added_p50_ms <= 1,
          },
    soak_heap_after_gc_mb_per_min:
      soak === undefined
        ? undefined
        : { target: '< 1', measured: soak.heap_after_gc.slope_mb_per_min, met: soak.met },
  },
  failures: Object.keys(failures).length > 0 ? failures : undefined,
  seconds: Math.round((Date.now() - started) / 100) / 10,
};

// The results go to stdout either way; --json only moves the progress lines to stderr (`log`).
console.log(JSON.stringify(results, null, 2));
