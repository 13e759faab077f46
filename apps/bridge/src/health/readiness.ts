// Whether the bridge can do its job right now, for /readyz: the local desktop serve started
// answers (its VNC server greets on its socket), the desktop server answers — a real
// connect to guacd (TCP) or to the embedded gateway (its Unix socket), and for the gateway also a
// Guacamole handshake step (`select vnc` must be answered with `args`; the probe then hangs up,
// which the gateway takes as a client gone before connecting and does not log) — and the
// database answers a read, the audit log is writing, and the desktop link has not stalled (a
// tunnel ended with 514 and none has relayed a frame since: see TunnelRegistry). Probes run at
// most once per CACHE_MS however often /readyz is asked (it is public), concurrent askers share
// one probe, and the reasons name no host, port or path.
import { connect, type Socket } from 'node:net';
import { GuacParser, encodeInstruction } from '@overlay-companion/guac';
import { AUDIT_RETENTION_KEY } from '../audit/auditLog.js';
import type { GuacdAddress } from '../config.js';
import type { Store } from '../store/types.js';

export type ReadinessResult = { ready: true } | { ready: false; reason: string };

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
    const [desktop, local, database] = await Promise.all([
      probeDesktopServer(this.options.guacd, timeoutMs),
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
    // Every reason that holds, not only the first: an operator fixes them all at once.
    const reasons = [
      desktop ? undefined : NOT_READY.desktop,
      local ? undefined : NOT_READY.localDesktop,
      database ? undefined : NOT_READY.database,
      this.options.audit?.().failingSince === undefined ? undefined : NOT_READY.audit,
      this.options.desktopLink?.() === undefined ? undefined : NOT_READY.desktopLink,
    ].filter((reason) => reason !== undefined);
    return reasons.length === 0 ? { ready: true } : { ready: false, reason: reasons.join('; ') };
  }
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
