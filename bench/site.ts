// `npm run bench -- --only site`: the load run of a site (issue 22) on this machine's loopback —
// 3 bridges (separate processes, one PostgreSQL, one nats-server), 2 gateways in their pool, N
// real Xvnc desktops and N AI clients (the official MCP SDK over Streamable HTTP), each client
// calling `draw_overlay` and `click_at` in turn at a fixed rate for a fixed time. Each desktop
// belongs to its own person, with their own token (so one person's input limit never caps
// another's), and has one window: a scripted viewer (a WebSocket client speaking the viewer
// protocol, no Chromium) on /ws/viewer that answers draw_overlay at once and carries out
// click_at as the real viewer does — mouse move, press and release through its own Guacamole
// tunnel, via the pool's gateway, to X — before answering. Half of the AI clients call the
// bridge that holds their desktop's window ("local"), half another one ("cross": forwarded over
// NATS); the difference of their p50s is the added cost of a cross-bridge call. Reported: p50 and
// p99 per tool, errors, RSS of every process at start and end, whether the pointer of every
// desktop ends where its last click put it (checked from X), and a bare NATS round trip paced
// like the calls (the floor under the cross-bridge cost).
// Default size scaled to this 2-core machine; `--site-full` runs the 20 × 20 at 10
// calls/s for 5 minutes.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect } from 'nats';
import { startLocalDesktop, type TcpLocalDesktop } from '@overlay-companion/gateway';
import { API } from '@overlay-companion/protocol';
import { tokenHint } from '../apps/bridge/src/auth/apiTokens.js';
import { hashPassword } from '../apps/bridge/src/auth/passwords.js';
import { sha256Hex } from '../apps/bridge/src/auth/secrets.js';
import { ScriptedViewer } from '../apps/bridge/src/mcp/testing/scriptedViewer.js';
import { newId } from '../apps/bridge/src/store/ids.js';
import { openStore } from '../apps/bridge/src/store/openStore.js';
import { signIn } from '../apps/bridge/src/testing/browserSession.js';
import { TunnelClient } from '../apps/bridge/src/testing/tunnelClient.js';
import { pointer } from '../apps/bridge/src/testing/xside.js';
import { callTool, closeHttp, connectHttp, sleep } from './mcpClient.js';
import { rssMb, SITE_BRIDGES, SITE_GATEWAYS, startSiteStack, type SiteStack } from './siteStack.js';
import { summarize, type Summary } from './stats.js';
import { removeDataDir } from '../apps/bridge/src/testing/dataDirs.js';

export interface SiteSize {
  desktops: number;
  callsPerSecond: number;
  seconds: number;
}

/** The run (--site-full). */
export const FULL_SITE: SiteSize = { desktops: 20, callsPerSecond: 10, seconds: 300 };
/** What this 2-core machine carries beside the rest of the bench. */
export const DEFAULT_SITE: SiteSize = { desktops: 4, callsPerSecond: 10, seconds: 30 };
export const QUICK_SITE: SiteSize = { desktops: 2, callsPerSecond: 10, seconds: 10 };

export interface SiteResults {
  bridges: number;
  gateways: number;
  desktops: number;
  ai_clients: number;
  calls_per_s_each: number;
  seconds: number;
  viewer: string;
  calls: number;
  errors: number;
  error_examples: string[];
  draw_overlay_ms: Summary;
  click_at_ms: Summary;
  /** draw_overlay by where the AI called: the window's bridge or another one. */
  local_ms: Summary;
  cross_ms: Summary;
  /** cross p50 − local p50 (target ≤ 1 ms). */
  cross_added_p50_ms: number;
  /**
   * A bare NATS request/reply (500 bytes) between two connections, paced like one client's
   * calls: the floor under the added time (a forwarded call makes this round trip through
   * nats-server, waking it and the bridges from idle each time).
   */
  nats_round_trip_ms: Summary;
  /** Desktops whose X pointer ended where the last click_at put it. */
  x_checked: { desktops: number; pointer_at_last_click: number };
  rss_mb: Record<string, { start: number; end: number }>;
}

interface Seat {
  index: number;
  desktop: TcpLocalDesktop;
  viewer: ScriptedViewer;
  tunnel: TunnelClient;
  client: Client;
  cross: boolean;
  lastClick: { x: number; y: number } | undefined;
}

export async function benchSite(size: SiteSize, log: (line: string) => void): Promise<SiteResults> {
  const desktops: TcpLocalDesktop[] = [];
  let stack: SiteStack | undefined;
  const seats: Seat[] = [];
  const dataDir = await mkdtemp(join(tmpdir(), 'oc-bench-site-'));
  try {
    for (let i = 0; i < size.desktops; i++)
      desktops.push(
        await startLocalDesktop({
          rfbTcp: true,
          windowManager: false,
          width: 1024,
          height: 768,
          // No VNC password: the desktop records hold no credentials, and the RFB port is on
          // loopback for the length of the run.
        }),
      );
    stack = await startSiteStack({ host: desktops[0]!.host, port: desktops[0]!.port });
    log(`bench: site of ${String(SITE_BRIDGES)} bridges and ${String(SITE_GATEWAYS)} gateways up`);
    const { bridges } = stack;
    const people = await addPeople(stack.databaseUrl, dataDir, desktops.length);
    // Their desktops through the admin's API, so every bridge of the site hears of them.
    const first = bridges[0]!;
    const admin = await signIn(first.url, first.admin.username, first.admin.password);
    for (const [i, person] of people.entries()) {
      const made = await admin.request(API.desktops, {
        body: {
          name: `Bench desktop ${String(i)}`,
          kind: 'vnc',
          params: { host: desktops[i]!.host, port: desktops[i]!.port },
          owner_id: person.id,
        },
      });
      if (made.status !== 201)
        throw new Error(`desktop ${String(i)}: ${String(made.status)} ${await made.text()}`);
    }
    for (const [index, person] of people.entries()) {
      const home = bridges[index % bridges.length]!;
      const cross = index % 2 === 1;
      const aiBridge = cross ? bridges[(index + 1) % bridges.length]! : home;
      const session = await signIn(home.url, person.username, person.password);
      const viewer = await ScriptedViewer.connect(session);
      // The only window of the desktop: control on its bridge (which then holds its lease).
      await viewer.waitFor((m) => m.type === 'hello' && m.role === 'control', 30_000);
      const tunnel = await TunnelClient.open(home.url, await session.ticket('tunnel'));
      await tunnel.waitFor((i) => i.opcode === 'size' && i.args[0] === '0', {
        timeoutMs: 30_000,
        what: "the desktop's size",
      });
      const client = await connectHttp(
        new URL('/mcp', aiBridge.url).toString(),
        person.token,
        `oc-bench-site-${String(index)}`,
      );
      const seat: Seat = {
        index,
        desktop: desktops[index]!,
        viewer,
        tunnel,
        client,
        cross,
        lastClick: undefined,
      };
      answerLikeTheViewer(seat);
      seats.push(seat);
    }
    // Load starts once every desktop's control window is reachable from its AI client's bridge:
    // its lease held by the window's bridge and seen by the AI's (told by the lease bucket's
    // watch, which can lag the window by a moment: the errors a run used to start with). Then
    // one unrecorded round of each tool per client (the SDK's tools/list, connection set-up).
    const readyStarted = performance.now();
    for (const seat of seats) await untilAnswered(seat);
    for (const seat of seats) await callTool(seat.client, 'click_at', clickArgs(seat, 0));
    log(
      `bench: every desktop's control window reachable from its AI client's bridge after ${(performance.now() - readyStarted).toFixed(0)} ms`,
    );
    const rssStart = await rssAll(stack);
    log(
      `bench: site load: ${String(seats.length)} AI clients × ${String(size.callsPerSecond)} calls/s for ${String(size.seconds)} s`,
    );
    const times = { draw_overlay: [] as number[], click_at: [] as number[] };
    const where = { local: [] as number[], cross: [] as number[] };
    const errors: string[] = [];
    let calls = 0;
    const loadStarted = performance.now();
    const until = loadStarted + size.seconds * 1000;
    const gapMs = 1000 / size.callsPerSecond;
    await Promise.all(
      seats.map(async (seat) => {
        // Spread the clients' starts over one gap, so their calls do not arrive in step.
        await sleep((gapMs * seat.index) / seats.length);
        for (let n = 1; performance.now() < until; n++) {
          const started = performance.now();
          const tool = n % 2 === 0 ? 'click_at' : 'draw_overlay';
          const args = tool === 'click_at' ? clickArgs(seat, n) : overlayArgs(n);
          const at = `desktop ${String(seat.index)}, ${seat.cross ? 'cross' : 'local'}, ${((started - loadStarted) / 1000).toFixed(1)} s`;
          try {
            const outcome = await callTool(seat.client, tool, args);
            const took = performance.now() - started;
            calls += 1;
            if (outcome.isError) errors.push(`${tool} (${at}): ${outcome.text.slice(0, 200)}`);
            else {
              times[tool].push(took);
              if (tool === 'draw_overlay') where[seat.cross ? 'cross' : 'local'].push(took);
            }
          } catch (err) {
            calls += 1;
            errors.push(
              `${tool} (${at}): ${err instanceof Error ? err.message : String(err)}`.slice(0, 240),
            );
          }
          await sleep(Math.max(0, gapMs - (performance.now() - started)));
        }
      }),
    );
    const rssEnd = await rssAll(stack);
    const natsRoundTrip = await pacedNatsRoundTrip(stack, gapMs);
    let atLastClick = 0;
    for (const seat of seats) {
      const at = await pointer(seat.desktop.env);
      if (seat.lastClick !== undefined && at.x === seat.lastClick.x && at.y === seat.lastClick.y)
        atLastClick += 1;
    }
    const local = summarize(where.local);
    const cross = summarize(where.cross);
    return {
      bridges: SITE_BRIDGES,
      gateways: SITE_GATEWAYS,
      desktops: size.desktops,
      ai_clients: seats.length,
      calls_per_s_each: size.callsPerSecond,
      seconds: size.seconds,
      viewer: 'scripted (ws client on /ws/viewer + its own Guacamole tunnel; no Chromium)',
      calls,
      errors: errors.length,
      error_examples: [...new Set(errors)].slice(0, 5),
      draw_overlay_ms: summarize(times.draw_overlay),
      click_at_ms: summarize(times.click_at),
      local_ms: local,
      cross_ms: cross,
      cross_added_p50_ms: Math.round((cross.p50 - local.p50) * 1000) / 1000,
      nats_round_trip_ms: natsRoundTrip,
      x_checked: { desktops: seats.length, pointer_at_last_click: atLastClick },
      rss_mb: Object.fromEntries(
        Object.keys(rssStart).map((name) => [
          name,
          { start: rssStart[name] ?? 0, end: rssEnd[name] ?? 0 },
        ]),
      ),
    };
  } finally {
    for (const seat of seats) {
      await closeHttp(seat.client);
      await seat.tunnel.close().catch(() => undefined);
      await seat.viewer.close().catch(() => undefined);
    }
    await stack?.stop();
    for (const desktop of desktops) await desktop.stop().catch(() => undefined);
    await removeDataDir(dataDir);
  }
}

/** Each desktop's person (a member), their password and an MCP token of theirs. */
async function addPeople(
  databaseUrl: string,
  dataDir: string,
  count: number,
): Promise<{ id: string; username: string; password: string; token: string }[]> {
  const store = await openStore({ dataDir, databaseUrl });
  try {
    const people = [];
    for (let i = 0; i < count; i++) {
      const username = `bench${String(i)}`;
      const password = randomBytes(12).toString('base64url');
      const token = `oc_bench_${randomBytes(24).toString('base64url')}`;
      const person = await store.people.add({
        username,
        displayName: `Bench ${String(i)}`,
        passwordHash: await hashPassword(password),
        role: 'member',
      });
      await store.tokens.create({
        id: newId('tok'),
        personId: person.id,
        name: 'site bench',
        tokenHash: sha256Hex(token),
        hint: tokenHint(token),
        createdAt: Date.now(),
        expiresAt: null,
      });
      people.push({ id: person.id, username, password, token });
    }
    return people;
  } finally {
    await store.close();
  }
}

/** Round trips timed for nats_round_trip_ms. */
const NATS_ROUND_TRIPS = 50;

/** A bare request/reply through the site's nats-server, one every `gapMs` (see nats_round_trip_ms). */
async function pacedNatsRoundTrip(stack: SiteStack, gapMs: number): Promise<Summary> {
  const options = { servers: stack.nats.address, token: stack.nats.token, noAsyncTraces: true };
  const asker = await connect(options);
  const answerer = await connect(options);
  try {
    answerer.subscribe('bench.echo', { callback: (_err, msg) => msg.respond(msg.data) });
    await answerer.flush();
    const payload = new Uint8Array(500);
    const times: number[] = [];
    for (let i = 0; i < NATS_ROUND_TRIPS; i++) {
      const started = performance.now();
      await asker.request('bench.echo', payload);
      times.push(performance.now() - started);
      await sleep(gapMs);
    }
    return summarize(times);
  } finally {
    await asker.close();
    await answerer.close();
  }
}

/** How long the start waits for a desktop's control window to be reachable from its AI's bridge. */
const READY_WAIT_MS = 30_000;

/** Calls draw_overlay from the seat's client until it is answered (not viewer_unavailable). */
async function untilAnswered(seat: Seat): Promise<void> {
  const deadline = performance.now() + READY_WAIT_MS;
  for (;;) {
    const outcome = await callTool(seat.client, 'draw_overlay', overlayArgs(0));
    if (!outcome.isError) return;
    if (performance.now() > deadline || !outcome.text.startsWith('viewer_unavailable'))
      throw new Error(`desktop ${String(seat.index)} never became reachable: ${outcome.text}`);
    await sleep(50);
  }
}

/** The viewer's part: draw_overlay answered at once; click_at carried out through the tunnel. */
function answerLikeTheViewer(seat: Seat): void {
  seat.viewer.on('draw_overlay', (call) => {
    const { x, y, width, height } = call.args as Record<string, number>;
    return {
      result: { overlay_id: `ov_${call.id}`, bounds: { x, y, width, height }, monitor_index: 0 },
    };
  });
  seat.viewer.on('click_at', (call) => {
    const { x, y } = call.args as { x: number; y: number };
    seat.tunnel.send('mouse', x, y, 0);
    seat.tunnel.send('mouse', x, y, 1);
    seat.tunnel.send('mouse', x, y, 0);
    return { result: { success: true, was_confirmed: false } };
  });
}

function overlayArgs(n: number): Record<string, unknown> {
  return { x: 10 + (n % 50), y: 10 + (n % 30), width: 40, height: 20, color: 'gold' };
}

function clickArgs(seat: Seat, n: number): Record<string, unknown> {
  const click = { x: 100 + ((n * 7) % 800), y: 100 + ((n * 5) % 500) };
  seat.lastClick = click;
  return click;
}

async function rssAll(stack: SiteStack): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, pids] of Object.entries(await stack.pids())) out[name] = await rssMb(pids);
  return out;
}
