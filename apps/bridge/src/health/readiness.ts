// Whether the bridge can do its job right now, for /readyz: the local desktop serve started
// answers (its VNC server greets on its socket), the desktop server answers — a real
// connect to guacd (TCP) or to the embedded gateway (its Unix socket), and for the gateway also a
// Guacamole handshake step (`select vnc` must be answered with `args`; the probe then hangs up,
// which the gateway takes as a client gone before connecting and does not log) — and the
// database answers a read, the audit log is writing, and the desktop link has not stalled (a
// tunnel ended with 514 and none has relayed a frame since: see TunnelRegistry). With a gateway
// pool (--gateways) it is not ready when no member of the pool is up, and ready with a note
// saying which are out (by their place in --gateways: gateway 2 of 3) and why when some are;
// in a site, not ready while the site's NATS is away (calls for control windows on other
// bridges are refused then, and what the others change does not arrive). Probes run at
// most once per CACHE_MS however often /readyz is asked (it is public), concurrent askers share
// one probe, and the reasons name no host, port or path.
import { connect, type Socket } from 'node:net';
import { GuacParser, encodeInstruction } from '@overlay-companion/guac';
import { AUDIT_RETENTION_KEY } from '../audit/auditLog.js';
import type { GuacdAddress } from '../config.js';
import type { Store } from '../store/types.js';
import { OUT_BECAUSE, type GatewayPool, type PoolMemberHealth } from '../tunnel/gatewayPool.js';

/** Ready, perhaps with a note of what is degraded; or not, with every reason that holds. */
export type ReadinessResult = { ready: true; note?: string } | { ready: false; reason: string };

export interface ReadinessOptions {
  /** The guacd-compatible server the tunnel uses. */
  guacd: GuacdAddress;
  store?: Store | undefined;
  /** Whether the desktop itself answers (serve's local desktop: its VNC server greets). */
  desktop?: ((timeoutMs: number) => Promise<boolean>) | undefined;
  /** Longest wait for each probe. */
  timeoutMs?: number;
  /** Whether the audit log is writing (its entries are how the person knows what the AI did). */
  audit?: (() => { failingSince: number | undefined }) | undefined;
  /** Since when the desktop link has been stalled (TunnelRegistry.stalledSince). */
  desktopLink?: (() => number | undefined) | undefined;
  /** The gateway pool (--gateways; tunnel/gatewayPool.ts), as its own health probes see it. */
  gatewayPool?: Pick<GatewayPool, 'health' | 'includes'> | undefined;
  /** The site's bus (OC_NATS_URL; site/siteBus.ts): since when NATS has been away. */
  siteBus?: { awaySince(): number | undefined } | undefined;
}

const PROBE_TIMEOUT_MS = 2000;
/** A result is reused for this long: /readyz floods cost one probe per second at most. */
const CACHE_MS = 1000;

export const NOT_READY = {
  desktop: 'the desktop server (guacd or the embedded gateway) does not answer',
  localDesktop: 'the local desktop does not answer (it is being started again, or it stopped)',
  database: 'the database does not answer',
  audit: 'the audit log cannot be written (entries wait in its queue; input tools may be refused)',
  desktopLink:
    'the desktop stopped answering (its link stalled: the desktop server timed out waiting for it)',
  gateways: 'no gateway of the pool is up (desktops on the pool cannot open)',
  siteBus:
    "the site's NATS is away (calls for control windows on other bridges are refused, and what other bridges change does not arrive)",
} as const;

/** The note of a ready bridge whose pool has members out. */
export const DEGRADED = {
  gateways: 'gateways of the pool are out',
  rdp: 'no guacd of the pool is up, so RDP desktops cannot open',
} as const;

export class Readiness {
  private last: { at: number; result: ReadinessResult } | undefined;
  private running: Promise<ReadinessResult> | undefined;

  constructor(private readonly options: ReadinessOptions) {}

  check(): Promise<ReadinessResult> {
    if (this.last !== undefined && Date.now() - this.last.at < CACHE_MS) {
      return Promise.resolve(this.last.result);
    }
    this.running ??= this.probe().then((result) => {
      this.last = { at: Date.now(), result };
      this.running = undefined;
      return result;
    });
    return this.running;
  }

  private async probe(): Promise<ReadinessResult> {
    const timeoutMs = this.options.timeoutMs ?? PROBE_TIMEOUT_MS;
    const pool = this.options.gatewayPool?.health();
    const [desktop, local, database] = await Promise.all([
      // A pool member as the desktop server is told of by the pool (its own probes).
      this.inPool() ? Promise.resolve(true) : probeDesktopServer(this.options.guacd, timeoutMs),
      this.options.desktop === undefined
        ? Promise.resolve(true)
        : this.options.desktop(timeoutMs).catch(() => false),
      this.options.store === undefined
        ? Promise.resolve(true)
        : withTimeout(
            this.options.store.settings.get(AUDIT_RETENTION_KEY).then(() => true),
            timeoutMs,
          ).catch(() => false),
    ]);
    const out = pool?.filter((member) => member.out !== undefined) ?? [];
    const busAway = this.options.siteBus?.awaySince();
    // Every reason that holds, not only the first: an operator fixes them all at once.
    const reasons = [
      desktop ? undefined : NOT_READY.desktop,
      local ? undefined : NOT_READY.localDesktop,
      database ? undefined : NOT_READY.database,
      this.options.audit?.().failingSince === undefined ? undefined : NOT_READY.audit,
      this.options.desktopLink?.() === undefined ? undefined : NOT_READY.desktopLink,
      pool === undefined || pool.length === 0 || out.length < pool.length
        ? undefined
        : `${NOT_READY.gateways}: ${describeOut(out, pool.length)}`,
      busAway === undefined ? undefined : `${NOT_READY.siteBus} for ${secondsSince(busAway)}`,
    ].filter((reason) => reason !== undefined);
    if (reasons.length > 0) return { ready: false, reason: reasons.join('; ') };
    if (pool === undefined || out.length === 0) return { ready: true };
    const notes = [
      `${String(out.length)} of ${String(pool.length)} ${DEGRADED.gateways}: ${describeOut(out, pool.length)}`,
    ];
    const guacds = pool.filter((member) => member.kind === 'guacd');
    if (guacds.length > 0 && guacds.every((member) => member.out !== undefined))
      notes.push(DEGRADED.rdp);
    return { ready: true, note: notes.join('; ') };
  }

  /** Whether the configured desktop server is itself a member of the pool. */
  private inPool(): boolean {
    const { guacd, gatewayPool } = this.options;
    return gatewayPool !== undefined && 'host' in guacd && gatewayPool.includes(guacd);
  }
}

/** "gateway 2 of 3 (guacd) out for 12 s: it refused a connection", for each member out. */
function describeOut(out: PoolMemberHealth[], of: number): string {
  return out
    .map((member) => {
      const kind = member.kind === 'guacd' ? 'guacd' : 'overlay-companion gateway';
      const since = member.out === undefined ? '' : ` out for ${secondsSince(member.out.since)}`;
      const why = member.out === undefined ? '' : `: ${OUT_BECAUSE[member.out.because]}`;
      return `gateway ${String(member.position)} of ${String(of)} (${kind})${since}${why}`;
    })
    .join(', ');
}

function secondsSince(at: number): string {
  return `${String(Math.max(0, Math.round((Date.now() - at) / 1000)))} s`;
}

/** True when the server accepts a connection (and, on a Unix socket, answers `select`). */
export function probeDesktopServer(guacd: GuacdAddress, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket: Socket =
      'path' in guacd
        ? connect({ path: guacd.path })
        : connect({ host: guacd.host, port: guacd.port });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('error', () => done(false));
    socket.once('connect', () => {
      // Real guacd starts a process per `select`, and logs it: for guacd a connect is the probe.
      if (!('path' in guacd)) return done(true);
      const parser = new GuacParser();
      socket.on('data', (chunk: Buffer) => {
        try {
          if (parser.push(chunk).some((instruction) => instruction.opcode === 'args')) done(true);
        } catch {
          done(false);
        }
      });
      socket.once('close', () => done(false));
      socket.write(encodeInstruction('select', 'vnc'));
    });
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
