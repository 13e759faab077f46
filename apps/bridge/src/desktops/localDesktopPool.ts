// Local desktops started on demand: the first time a `local` desktop record is opened (a window
// or its AI), a sandboxed Xvnc desktop is started for it (startLocalDesktop with `sandbox`: its
// programs run in bubblewrap, unprivileged, with none of the bridge's environment, files or
// processes in reach), its RFB socket is allowed on the embedded gateway, and it is stopped
// again once nobody has used it for its idle time (the record's idle_stop_minutes, else
// DEFAULT_IDLE_STOP_MINUTES). Given the data dir (as serve runs it), each record's desktop runs
// as a uid of its own with a HOME that outlives idle stops and restarts of the bridge, deleted
// with the record (remove; desktopHomes.ts); without it (some tests), its HOME is a fresh dir of
// the sandbox's own, gone when it stops.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { DesktopParams } from '@overlay-companion/protocol';
import { startLocalDesktop, type LocalDesktop } from '@overlay-companion/gateway';
import type { Logger } from 'pino';
import { DESKTOP_HOMES_DIR, DesktopHomes } from './desktopHomes.js';

/** A local desktop nobody used for this long is stopped (it starts again when opened). */
export const DEFAULT_IDLE_STOP_MINUTES = 30;
/** How often idle desktops are looked for. */
const IDLE_SWEEP_MS = 30_000;

export interface RunningLocal {
  rfbPath: string;
  password: string;
  desktop: LocalDesktop;
}

export interface LocalDesktopPoolOptions {
  logger: Logger;
  /** The embedded gateway must be told which socket it may open. */
  allowSocket(path: string): () => void;
  /** Whether anyone has the desktop open now (a window's tunnel, an MCP session's call). */
  inUse(desktopId: string): boolean;
  /** The operator's size (--desktop-size); else the record's, else 1280×800. */
  size?: { width: number; height: number } | undefined;
  /**
   * The bridge's data dir: each desktop record's HOME is kept (and its uid allocated) in its
   * DESKTOP_HOMES_DIR. Absent: a fresh HOME per start, removed at stop.
   */
  dataDir?: string | undefined;
  /**
   * Whether the desktop's record still exists (the store's answer, not a cache): a desktop whose
   * record went another way than remove() is removed at the next sweep. Absent: never.
   */
  recordExists?: ((desktopId: string) => Promise<boolean>) | undefined;
  /** Starts a desktop; tests may replace it. */
  start?: typeof startLocalDesktop;
}

interface Running {
  ready: Promise<RunningLocal>;
  lastUsed: number;
  idleMs: number;
  revoke?: () => void;
}

export class LocalDesktopPool {
  private readonly running = new Map<string, Running>();
  private readonly sweep: NodeJS.Timeout;
  private readonly homes: DesktopHomes | undefined;

  constructor(private readonly options: LocalDesktopPoolOptions) {
    this.homes =
      options.dataDir === undefined
        ? undefined
        : new DesktopHomes(join(options.dataDir, DESKTOP_HOMES_DIR));
    this.sweep = setInterval(() => void this.stopIdle(Date.now()), IDLE_SWEEP_MS);
    this.sweep.unref();
  }

  /** The desktop's VNC socket, starting it when it is not running. */
  ensure(desktopId: string, params: DesktopParams): Promise<RunningLocal> {
    const idleMs = (params.idle_stop_minutes ?? DEFAULT_IDLE_STOP_MINUTES) * 60_000;
    const existing = this.running.get(desktopId);
    if (existing !== undefined) {
      existing.lastUsed = Date.now();
      existing.idleMs = idleMs;
      return existing.ready;
    }
    const entry: Running = { ready: this.start(desktopId, params), lastUsed: Date.now(), idleMs };
    entry.ready.then(
      (started) => {
        // Stopped while it was starting: never allow a socket nobody will take back.
        if (this.running.get(desktopId) !== entry) return;
        entry.revoke = this.options.allowSocket(started.rfbPath);
      },
      () => {
        if (this.running.get(desktopId) === entry) this.running.delete(desktopId);
      },
    );
    this.running.set(desktopId, entry);
    return entry.ready;
  }

  /** The running desktop, if it is (tests observe it from X through its env). */
  async get(desktopId: string): Promise<LocalDesktop | undefined> {
    return (await this.running.get(desktopId)?.ready.catch(() => undefined))?.desktop;
  }

  /** The record was deleted: stops its desktop, then deletes its HOME (true when it had one). */
  async remove(desktopId: string): Promise<boolean> {
    await this.stop(desktopId);
    const removed = (await this.homes?.remove(desktopId)) ?? false;
    if (removed) this.options.logger.info({ desktopId }, 'deleted a removed desktop’s home');
    return removed;
  }

  /** Stops one desktop now; its HOME stays. */
  async stop(desktopId: string): Promise<void> {
    const entry = this.running.get(desktopId);
    if (entry === undefined) return;
    this.running.delete(desktopId);
    entry.revoke?.();
    const started = await entry.ready.catch(() => undefined);
    await started?.desktop.stop();
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    await Promise.all([...this.running.keys()].map((id) => this.stop(id)));
  }

  /**
   * Stops the desktops nobody used for their idle time as of `now`, and removes those whose
   * record is gone (run every 30 s).
   */
  async stopIdle(now: number): Promise<void> {
    await this.removeOrphans();
    for (const [id, entry] of this.running) {
      if (this.options.inUse(id)) {
        entry.lastUsed = now;
        continue;
      }
      if (now - entry.lastUsed >= entry.idleMs) {
        this.options.logger.info({ desktopId: id }, 'stopping an idle local desktop');
        await this.stop(id);
      }
    }
  }

  /**
   * Desktops whose record went without remove() — deleting a person deletes their desktops in
   * the store — are stopped and their HOMEs deleted. A failed look-up keeps them: a HOME is
   * only ever deleted for a record known to be gone.
   */
  private async removeOrphans(): Promise<void> {
    const exists = this.options.recordExists;
    if (exists === undefined) return;
    const ids = new Set([...this.running.keys(), ...((await this.homes?.owners()) ?? [])]);
    for (const id of ids) {
      if (await exists(id).catch(() => true)) continue;
      this.options.logger.info({ desktopId: id }, 'removing a local desktop whose record is gone');
      await this.remove(id);
    }
  }

  private async start(desktopId: string, params: DesktopParams): Promise<RunningLocal> {
    // VNC authentication uses at most 8 characters; the socket is the desktop's and the
    // gateway's alone, this is a second lock.
    const password = randomBytes(6).toString('base64url');
    const size =
      this.options.size ??
      (params.width !== undefined && params.height !== undefined
        ? { width: params.width, height: params.height }
        : undefined);
    const started = Date.now();
    const home = await this.homes?.ensure(desktopId);
    const desktop = await (this.options.start ?? startLocalDesktop)({
      xterm: true,
      windowManager: true,
      password,
      sandbox:
        home === undefined
          ? true
          : { homeDir: home.dir, ...(home.user === undefined ? {} : { user: home.user }) },
      ...(size === undefined ? {} : size),
    });
    this.options.logger.info(
      { desktopId, display: desktop.display, startMs: Date.now() - started },
      'local desktop started',
    );
    return { rfbPath: desktop.rfbPath, password, desktop };
  }
}
