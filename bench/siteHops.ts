// `npx tsx --conditions=overlay-source bench/siteHops.ts [--calls N] [--gap-ms G] [--json]`:
// where the added time of a forwarded (cross-bridge) call goes, step by step. Two processes play
// two bridges of a site on one real nats-server: this one calls, a child process holds the
// desktop's control window. Both run the real bus (siteBus.ts: the connection, seal, listen)
// and the real forwarding (remoteControl.ts: RemoteControl.call there, RemoteControl.answer
// here); only the desktop plane behind the holder is a stand-in whose viewer answers at once
// (named a fake: the viewer's own time is the same for a local call, so it is not part of the
// added time). Each step is stamped with process.hrtime (CLOCK_MONOTONIC: one clock for both
// processes of this machine): the caller's preparation, seal and write to the socket; the wire
// out (kernel, nats-server, waking the holder); the holder's read, open (AES-GCM, JSON, zod),
// dispatch to its plane, reply seal and write; the wire back; the caller's read, open and result
// parse. A bare request/reply between two plain connections, paced the same, is the floor.
// Calls are paced `gapMs` apart, like one AI client of the site bench, so every process idles
// between calls and pays for waking up as it does there. Run it on a quiet machine (flock
// /tmp/oc-heavy.lock).
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connect, type NatsConnection } from 'nats';
import {
  aiClientRef,
  defaultPermissions,
  type ToolViewerResult,
} from '@overlay-companion/protocol';
import { silentLogger } from '../apps/bridge/src/logger.js';
import type { DesktopPlane, DesktopPlanes } from '../apps/bridge/src/mcp/desktopPlanes.js';
import { RemoteControl } from '../apps/bridge/src/site/remoteControl.js';
import { SiteBus } from '../apps/bridge/src/site/siteBus.js';
import { SiteKeys } from '../apps/bridge/src/site/siteKeys.js';
import { SiteSeal } from '../apps/bridge/src/site/siteSeal.js';
import { startTestNats } from '../apps/bridge/src/site/testing/natsServer.js';
import type { SettingsRepo } from '../apps/bridge/src/store/types.js';
import { sleep } from './mcpClient.js';
import { summarize, type Summary } from './stats.js';

const DESKTOP_ID = 'dsk_hops';
const SITE_ID = 'hops';
const ECHO_SUBJECT = 'bench.hops.echo';

interface Setup {
  address: string;
  token: string;
  secret: string;
}

/** What one process stamped (ns, CLOCK_MONOTONIC), per call in order. */
interface Stamps {
  /** Socket writes and reads of the bus connection, in order. */
  sends: bigint[];
  reads: bigint[];
  /** Per forwarded call: named stamps. */
  calls: Record<string, bigint>[];
}

const now = (): bigint => process.hrtime.bigint();

/**
 * Stamps the bus's socket writes and reads, and the seal's seal/open, into `stamps`; `current`
 * says which call record a stamp belongs to.
 */
function instrument(nc: NatsConnection, stamps: Stamps, current: () => Record<string, bigint>) {
  const transport = (
    nc as unknown as {
      protocol: {
        transport: { send(frame: Uint8Array): void; socket: NodeJS.EventEmitter };
      };
    }
  ).protocol.transport;
  const send = transport.send.bind(transport);
  transport.send = (frame: Uint8Array): void => {
    stamps.sends.push(now());
    send(frame);
  };
  transport.socket.prependListener('data', () => stamps.reads.push(now()));
  /* eslint-disable @typescript-eslint/unbound-method -- wrapped and called with `this` */
  const seal = SiteSeal.prototype.seal;
  const open = SiteSeal.prototype.open;
  /* eslint-enable @typescript-eslint/unbound-method */
  SiteSeal.prototype.seal = function (this: SiteSeal, where, message) {
    const record = current();
    record.sealStart ??= now();
    const out = seal.call(this, where, message);
    record.sealEnd ??= now();
    record.sealedBytes ??= BigInt(out.byteLength);
    return out;
  };
  SiteSeal.prototype.open = function (this: SiteSeal, where, schema, data, check) {
    const record = current();
    record.openStart ??= now();
    const out = open.call(this, where, schema, data, check);
    record.openEnd ??= now();
    return out;
  } as typeof open;
}

/** The first stamp in `list` at or after `t` (the write that carried what was sealed at t). */
function firstAfter(list: readonly bigint[], t: bigint): bigint | undefined {
  return list.find((s) => s >= t);
}

/** The last stamp in `list` at or before `t` (the read that brought what was opened at t). */
function lastBefore(list: readonly bigint[], t: bigint): bigint | undefined {
  let found: bigint | undefined;
  for (const s of list) {
    if (s > t) break;
    found = s;
  }
  return found;
}

function joinBus(setup: Setup): Promise<SiteBus> {
  const settings = { get: () => Promise.resolve(setup.secret) } as unknown as SettingsRepo;
  return SiteKeys.load(settings, SITE_ID).then((keys) =>
    SiteBus.join({
      config: { servers: [setup.address], token: setup.token },
      siteId: SITE_ID,
      logger: silentLogger(),
      keys,
    }),
  );
}

/** A fake plane (the unreachable edge here): autopilot, default toggles, a viewer that answers at once. */
function fakePlanes(stamps: Stamps, current: () => Record<string, bigint>): DesktopPlanes {
  const plane = {
    desktopId: DESKTOP_ID,
    mode: { mode: 'autopilot', snapshot: { mode: 'autopilot', metadata: undefined } },
    permissions: () => defaultPermissions(),
    standing: { byId: () => undefined },
    hub: {
      control: { headless: false },
      call: (_tool: string, args: { x: number; y: number; width: number; height: number }) => {
        current().viewer = now();
        return Promise.resolve({
          overlay_id: `ov_${String(stamps.calls.length)}`,
          bounds: { x: args.x, y: args.y, width: args.width, height: args.height },
          monitor_index: 0,
        });
      },
      noViewerError: () => new Error('no viewer'),
    },
  };
  return {
    ifLoaded: () => Promise.resolve(plane),
    loaded: () => Promise.resolve([]),
  } as unknown as DesktopPlanes;
}

/** The child: the bridge holding the control window, and the bare echo. */
async function holder(setup: Setup): Promise<void> {
  const stamps: Stamps = { sends: [], reads: [], calls: [] };
  let record: Record<string, bigint> = {};
  const current = (): Record<string, bigint> => record;
  const bus = await joinBus(setup);
  instrument(bus.nc, stamps, current);
  // Each forwarded call's arrival opens a new record: the seal's open is its first stamp.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- wrapped and called with `this`
  const open = SiteSeal.prototype.open;
  SiteSeal.prototype.open = function (this: SiteSeal, where, schema, data, check) {
    if (where.endsWith('.call')) {
      record = {};
      stamps.calls.push(record);
    }
    return open.call(this, where, schema, data, check);
  } as typeof open;
  const remote = new RemoteControl({
    bus,
    planes: fakePlanes(stamps, current),
    logger: silentLogger(),
  });
  const bare = await connect({ servers: setup.address, token: setup.token, noAsyncTraces: true });
  bare.subscribe(ECHO_SUBJECT, { callback: (_err, msg) => msg.respond(msg.data) });
  await bare.flush();
  await bus.nc.flush();
  process.send?.({ ready: bus.bridgeId });
  process.on('message', (message: { report?: boolean }) => {
    if (message.report !== true) return;
    process.send?.({ stamps: serialize(stamps) }, () => {
      void remote
        .close()
        .then(() => bus.close())
        .then(() => bare.close())
        .then(() => process.exit(0));
    });
  });
}

type Serialized = { sends: string[]; reads: string[]; calls: Record<string, string>[] };

function serialize(stamps: Stamps): Serialized {
  return {
    sends: stamps.sends.map(String),
    reads: stamps.reads.map(String),
    calls: stamps.calls.map((c) =>
      Object.fromEntries(Object.entries(c).map(([k, v]) => [k, String(v)])),
    ),
  };
}

function deserialize(s: Serialized): Stamps {
  return {
    sends: s.sends.map(BigInt),
    reads: s.reads.map(BigInt),
    calls: s.calls.map((c) =>
      Object.fromEntries(Object.entries(c).map(([k, v]) => [k, BigInt(v)])),
    ),
  };
}

export interface HopsResults {
  calls: number;
  gap_ms: number;
  /** Bare request/reply of two plain connections (500 bytes), paced the same. */
  bare_round_trip_ms: Summary;
  /** RemoteControl.call → answer → result, the whole forwarded call. */
  forwarded_ms: Summary;
  /** forwarded − both wire legs: what our code adds on the two bridges. */
  ours_ms: Summary;
  /** Each step's time (ms), in order. */
  steps_ms: Record<string, Summary>;
  sealed_bytes: { request: number; reply: number };
}

export async function benchSiteHops(options: {
  calls: number;
  gapMs: number;
  log: (line: string) => void;
}): Promise<HopsResults> {
  const nats = await startTestNats();
  if ('skip' in nats) throw new Error(`siteHops needs nats-server: ${nats.skip}`);
  const setup: Setup = {
    address: nats.address,
    token: nats.token,
    secret: randomBytes(32).toString('hex'),
  };
  const child = fork(fileURLToPath(import.meta.url), ['--holder', JSON.stringify(setup)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const holderId = await new Promise<string>((resolve, reject) => {
      child.once('message', (m: { ready?: string }) =>
        m.ready === undefined ? reject(new Error('no ready')) : resolve(m.ready),
      );
      child.once('exit', (code) => reject(new Error(`the holder exited (${String(code)})`)));
    });
    const stamps: Stamps = { sends: [], reads: [], calls: [] };
    let record: Record<string, bigint> = {};
    const bus = await joinBus(setup);
    instrument(bus.nc, stamps, () => record);
    const planes = fakePlanes(stamps, () => record);
    const remote = new RemoteControl({ bus, planes, logger: silentLogger() });
    const plane = (await planes.ifLoaded(DESKTOP_ID)) as unknown as DesktopPlane;
    const bare = await connect({ servers: setup.address, token: setup.token, noAsyncTraces: true });

    // Warm-up (JIT, first-use paths), not recorded.
    for (let i = 0; i < 50; i++) {
      await forward(remote, plane, holderId, i);
      await bare.request(ECHO_SUBJECT, new Uint8Array(500));
    }
    stamps.calls.length = 0;
    const bareTimes: number[] = [];
    const payload = new Uint8Array(500);
    options.log(
      `siteHops: ${String(options.calls)} forwarded calls and bare round trips, ${String(options.gapMs)} ms apart`,
    );
    for (let i = 0; i < options.calls; i++) {
      record = {};
      stamps.calls.push(record);
      record.start = now();
      await forward(remote, plane, holderId, i);
      record.end = now();
      await sleep(options.gapMs);
      const started = now();
      await bare.request(ECHO_SUBJECT, payload);
      bareTimes.push(Number(now() - started) / 1e6);
      await sleep(options.gapMs);
    }
    const held = await new Promise<Stamps>((resolve) => {
      child.on('message', (m: { stamps?: Serialized }) => {
        if (m.stamps !== undefined) resolve(deserialize(m.stamps));
      });
      child.send({ report: true });
    });
    await remote.close();
    await bus.close();
    await bare.close();
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    return analyse(stamps, held, bareTimes, options);
  } finally {
    if (child.exitCode === null) child.kill();
    await nats.stop();
  }
}

function forward(
  remote: RemoteControl,
  plane: DesktopPlane,
  holderId: string,
  n: number,
): Promise<ToolViewerResult<'draw_overlay'>> {
  return remote.call(
    { bridge: holderId, headless: false },
    plane,
    'draw_overlay',
    { x: 10 + (n % 50), y: 10 + (n % 30), width: 40, height: 20, color: 'gold' } as never,
    'allow',
    {
      timeoutMs: 5_000,
      client: aiClientRef('tok_hops', 'hops', 'siteHops'),
    },
  );
}

const STEPS = [
  ['caller: prepare', 'A.start', 'A.sealStart'],
  ['caller: seal request', 'A.sealStart', 'A.sealEnd'],
  ['caller: to socket', 'A.sealEnd', 'A.send'],
  ['wire out (kernel, nats-server, wake)', 'A.send', 'B.read'],
  ['holder: read to open', 'B.read', 'B.openStart'],
  ['holder: open request', 'B.openStart', 'B.openEnd'],
  ['holder: dispatch to plane', 'B.openEnd', 'B.viewer'],
  ['holder: reply + seal', 'B.viewer', 'B.sealEnd'],
  ['holder: to socket', 'B.sealEnd', 'B.send'],
  ['wire back (kernel, nats-server, wake)', 'B.send', 'A.read'],
  ['caller: read to open', 'A.read', 'A.openStart'],
  ['caller: open reply', 'A.openStart', 'A.openEnd'],
  ['caller: parse result, resume', 'A.openEnd', 'A.end'],
] as const;

function analyse(
  caller: Stamps,
  held: Stamps,
  bareTimes: number[],
  options: { calls: number; gapMs: number },
): HopsResults {
  const steps: Record<string, number[]> = Object.fromEntries(STEPS.map(([name]) => [name, []]));
  const forwarded: number[] = [];
  const ours: number[] = [];
  let requestBytes = 0;
  let replyBytes = 0;
  // The holder's records include the warm-up's: the last ones are the recorded calls'.
  const heldCalls = held.calls.slice(-caller.calls.length);
  for (const [i, a] of caller.calls.entries()) {
    const b = heldCalls[i];
    if (b === undefined || a.start === undefined || a.end === undefined) continue;
    const t: Record<string, bigint | undefined> = {};
    for (const [k, v] of Object.entries(a)) t[`A.${k}`] = v;
    for (const [k, v] of Object.entries(b)) t[`B.${k}`] = v;
    t['A.send'] = a.sealEnd === undefined ? undefined : firstAfter(caller.sends, a.sealEnd);
    t['B.read'] = b.openStart === undefined ? undefined : lastBefore(held.reads, b.openStart);
    t['B.send'] = b.sealEnd === undefined ? undefined : firstAfter(held.sends, b.sealEnd);
    t['A.read'] = a.openStart === undefined ? undefined : lastBefore(caller.reads, a.openStart);
    const ms = (from: string, to: string): number | undefined => {
      const x = t[from];
      const y = t[to];
      return x === undefined || y === undefined ? undefined : Number(y - x) / 1e6;
    };
    const row = STEPS.map(([name, from, to]) => [name, ms(from, to)] as const);
    if (row.some(([, v]) => v === undefined || v < 0)) continue;
    for (const [name, v] of row) steps[name]!.push(v!);
    const total = Number(a.end - a.start) / 1e6;
    forwarded.push(total);
    ours.push(total - ms('A.send', 'B.read')! - ms('B.send', 'A.read')!);
    requestBytes = Number(a.sealedBytes ?? 0n);
    replyBytes = Number(b.sealedBytes ?? 0n);
  }
  return {
    calls: forwarded.length,
    gap_ms: options.gapMs,
    bare_round_trip_ms: summarize(bareTimes),
    forwarded_ms: summarize(forwarded),
    ours_ms: summarize(ours),
    steps_ms: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, summarize(v)])),
    sealed_bytes: { request: requestBytes, reply: replyBytes },
  };
}

const { values } = parseArgs({
  options: {
    holder: { type: 'string' },
    calls: { type: 'string', default: '300' },
    'gap-ms': { type: 'string', default: '50' },
    json: { type: 'boolean', default: false },
  },
});

if (values.holder !== undefined) {
  await holder(JSON.parse(values.holder) as Setup);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const results = await benchSiteHops({
    calls: Number(values.calls),
    gapMs: Number(values['gap-ms']),
    log,
  });
  if (values.json) console.log(JSON.stringify(results, null, 2));
  else {
    console.log(
      `forwarded p50 ${String(results.forwarded_ms.p50)} ms (p99 ${String(results.forwarded_ms.p99)}), bare NATS p50 ${String(results.bare_round_trip_ms.p50)} ms, ours p50 ${String(results.ours_ms.p50)} ms; sealed ${String(results.sealed_bytes.request)} B out, ${String(results.sealed_bytes.reply)} B back`,
    );
    for (const [name, s] of Object.entries(results.steps_ms))
      console.log(
        `  ${name.padEnd(40)} p50 ${s.p50.toFixed(3).padStart(7)}  mean ${s.mean.toFixed(3).padStart(7)}  p99 ${s.p99.toFixed(3).padStart(7)}`,
      );
  }
}
