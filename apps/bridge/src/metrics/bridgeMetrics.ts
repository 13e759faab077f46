// The bridge's Prometheus series, in one registry per bridge (tests run several bridges in one
// process, so never prom-client's global registry). Counted where things happen — tool calls
// (mcp/sessions.ts, through toolCallWatch.ts), the tunnel's relayed frames (Guacamole `sync`
// instructions) and bytes, the embedded gateway's frame encodes — and read at scrape time from
// what the bridge already tracks: viewers connected, approvals waiting, MCP sessions, tunnels.
// Label values are bounded: tools outside the tool list count as "unknown", outcomes are "ok",
// an error kind, or "rejected" (a JSON-RPC error before the tool ran). The tunnel's bytes and
// frames are published coarsely (coarseTally.ts): whole steps, at most every TUNNEL_PUBLISH_MS,
// so they never step once per key typed.
import { TOOL_NAMES, type ErrorKind, type ToolName } from '@overlay-companion/protocol';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CoarseTally } from './coarseTally.js';

/** The tunnel's series are published at most this often… */
export const TUNNEL_PUBLISH_MS = 10_000;
/** …in steps of this many bytes (a key typed is about 40 bytes to the desktop, down and up)… */
export const TUNNEL_BYTES_STEP = 4096;
/** …and this many frames (a character echoed is a frame or two). */
export const TUNNEL_FRAMES_STEP = 64;
/** Encode times kept between publications (a busy gateway makes ~600 frames in 10 s). */
const MAX_PENDING_ENCODES = 10_000;

export type ToolOutcome = 'ok' | ErrorKind | 'rejected';

/** What the bridge knows at scrape time; each part is optional (a bare bridge has no plane). */
export interface MetricSources {
  /** Viewer windows connected (control and mirrors, headless included). */
  viewers?: () => Promise<number> | number;
  /** Approvals waiting in the people's control windows. */
  pendingApprovals?: () => Promise<number> | number;
  mcpSessions?: () => number;
  tunnels?: () => number;
}

const TOOLS: ReadonlySet<string> = new Set(TOOL_NAMES);

export class BridgeMetrics {
  readonly registry = new Registry();
  private readonly sources: MetricSources = {};
  private readonly toolCalls: Counter<'tool' | 'outcome'>;
  private readonly toolSeconds: Histogram<'tool'>;
  private readonly tunnelFrames: Counter;
  private readonly tunnelBytes: Counter<'direction'>;
  private readonly encodeSeconds: Histogram;
  private readonly gatewayFrames: Counter;
  private readonly tunnelTallies: Record<'to_browser' | 'to_desktop', CoarseTally>;
  private readonly tunnelFrameTally: CoarseTally;
  private readonly gatewayFrameTally: CoarseTally;
  /** Encode times of frames not published yet (bounded: the oldest go first). */
  private readonly pendingEncodes: number[] = [];

  constructor(options: { processMetrics?: boolean; now?: () => number } = {}) {
    const registers = [this.registry];
    const sources = this.sources;
    const now = options.now ?? Date.now;
    const tunnelTallies = {
      to_browser: new CoarseTally(TUNNEL_BYTES_STEP, TUNNEL_PUBLISH_MS, now),
      to_desktop: new CoarseTally(TUNNEL_BYTES_STEP, TUNNEL_PUBLISH_MS, now),
    };
    this.tunnelTallies = tunnelTallies;
    const frameTally = new CoarseTally(TUNNEL_FRAMES_STEP, TUNNEL_PUBLISH_MS, now);
    this.tunnelFrameTally = frameTally;
    /** Frames per second over the last publication: coarse too, never a 5 s window of keys. */
    const frameRate = { perSecond: 0, at: now() };
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.toolCalls = new Counter({
      name: 'oc_tool_calls_total',
      help: 'MCP tool calls answered, by tool and outcome (ok, an error kind, or rejected).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.toolSeconds = new Histogram({
      name: 'oc_tool_call_duration_seconds',
      help: 'Time from a tools/call request to its answer, waiting for the person included.',
      labelNames: ['tool'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    new Gauge({
      name: 'oc_pending_approvals',
      help: "Tool calls waiting for a person's approval in their viewer.",
      registers,
      async collect() {
        this.set(await (sources.pendingApprovals?.() ?? 0));
      },
    });
    new Gauge({
      name: 'oc_viewers_connected',
      help: 'Viewer windows connected to the control channel (/ws/viewer).',
      registers,
      async collect() {
        this.set(await (sources.viewers?.() ?? 0));
      },
    });
    new Gauge({
      name: 'oc_mcp_sessions',
      help: 'Open MCP sessions.',
      registers,
      collect() {
        this.set(sources.mcpSessions?.() ?? 0);
      },
    });
    new Gauge({
      name: 'oc_tunnels_open',
      help: 'Guacamole tunnels (desktop connections of viewers) open.',
      registers,
      collect() {
        this.set(sources.tunnels?.() ?? 0);
      },
    });
    this.tunnelFrames = new Counter({
      name: 'oc_tunnel_frames_total',
      help: `Frames relayed to viewers: Guacamole sync instructions from the desktop server (in steps of ${TUNNEL_FRAMES_STEP}, updated at most every ${TUNNEL_PUBLISH_MS / 1000} s).`,
      registers,
      collect() {
        const frames = frameTally.take();
        if (frames === undefined) return;
        const at = now();
        frameRate.perSecond = frames / Math.max(1, (at - frameRate.at) / 1000);
        frameRate.at = at;
        if (frames > 0) this.inc(frames);
      },
    });
    this.tunnelBytes = new Counter({
      name: 'oc_tunnel_bytes_total',
      help: `Bytes relayed by the tunnel, to the browser or to the desktop server (in steps of ${TUNNEL_BYTES_STEP}, updated at most every ${TUNNEL_PUBLISH_MS / 1000} s, so single keys typed never show).`,
      labelNames: ['direction'],
      registers,
      collect() {
        for (const direction of ['to_browser', 'to_desktop'] as const) {
          const bytes = tunnelTallies[direction].take();
          if (bytes !== undefined && bytes > 0) this.inc({ direction }, bytes);
        }
      },
    });
    const tunnelFrames = this.tunnelFrames;
    new Gauge({
      name: 'oc_tunnel_frames_per_second',
      help: 'Frames relayed to viewers per second, between the last two updates of oc_tunnel_frames_total (all tunnels).',
      registers,
      async collect() {
        // Publishes the frame count first (a no-op within the interval), then reads its rate.
        await tunnelFrames.get();
        this.set(frameRate.perSecond);
      },
    });
    // The gateway's frames step once per character echoed too: published like the tunnel's,
    // in whole steps at most every TUNNEL_PUBLISH_MS, the encode times with them.
    const gatewayTally = new CoarseTally(TUNNEL_FRAMES_STEP, TUNNEL_PUBLISH_MS, now);
    this.gatewayFrameTally = gatewayTally;
    const encodes = this.pendingEncodes;
    const gatewayRate = { perSecond: 0, at: now() };
    const publishGateway = (): void => {
      const frames = gatewayTally.take();
      if (frames === undefined) return;
      const at = now();
      gatewayRate.perSecond = frames / Math.max(1, (at - gatewayRate.at) / 1000);
      gatewayRate.at = at;
      if (frames === 0) return;
      gatewayFrames.inc(frames);
      for (const ms of encodes.splice(0, frames)) encodeSeconds.observe(ms / 1000);
    };
    const encodeSeconds = new Histogram({
      name: 'oc_gateway_frame_encode_seconds',
      help: `Time the embedded gateway took to encode one frame's images (published with oc_gateway_frames_total, in steps of ${TUNNEL_FRAMES_STEP} frames).`,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
      collect: publishGateway,
    });
    this.encodeSeconds = encodeSeconds;
    const gatewayFrames = new Counter({
      name: 'oc_gateway_frames_total',
      help: `Frames the embedded gateway sent (to all browsers; in steps of ${TUNNEL_FRAMES_STEP}, updated at most every ${TUNNEL_PUBLISH_MS / 1000} s).`,
      registers,
      collect: publishGateway,
    });
    this.gatewayFrames = gatewayFrames;
    new Gauge({
      name: 'oc_gateway_frames_per_second',
      help: 'Frames the embedded gateway sent per second, between the last two updates of oc_gateway_frames_total.',
      registers,
      collect() {
        publishGateway();
        this.set(gatewayRate.perSecond);
      },
    });
    // Every label pair exists from the start, so dashboards see zeros rather than gaps.
    this.tunnelBytes.inc({ direction: 'to_browser' }, 0);
    this.tunnelBytes.inc({ direction: 'to_desktop' }, 0);
  }

  /** Adds what the bridge can report at scrape time (called as its parts come up). */
  observe(sources: MetricSources): void {
    Object.assign(this.sources, sources);
  }

  toolCall(tool: string, outcome: ToolOutcome, seconds: number): void {
    const name: ToolName | 'unknown' = TOOLS.has(tool) ? (tool as ToolName) : 'unknown';
    this.toolCalls.inc({ tool: name, outcome });
    this.toolSeconds.observe({ tool: name }, seconds);
  }

  tunnelFrame(): void {
    this.tunnelFrameTally.add(1);
  }

  tunnelTraffic(direction: 'to_browser' | 'to_desktop', bytes: number): void {
    this.tunnelTallies[direction].add(bytes);
  }

  /** The embedded gateway's per-frame hook (GatewayOptions.onFrameEncoded). */
  readonly gatewayFrame = (encodeMs: number): void => {
    this.gatewayFrameTally.add(1);
    this.pendingEncodes.push(encodeMs);
    if (this.pendingEncodes.length > MAX_PENDING_ENCODES) this.pendingEncodes.shift();
  };

  /** The exposition text and its content type, for GET /metrics. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
