// Local desktops started on demand: the first time a `local` desktop record is opened (a window
// or its AI), a sandboxed Xvnc desktop is started for it (startLocalDesktop with `sandbox`: its
// programs run in bubblewrap, unprivileged, with none of the bridge's environment, files or
// processes in reach), its RFB socket is allowed on the embedded gateway, and it is stopped
// again once nobody has used it for its idle time (the record's idle_stop_minutes, else
// DEFAULT_IDLE_STOP_MINUTES). Given the data dir (as serve runs it), each record's desktop runs
// as a uid of its own with a HOME that outlives idle stops and restarts of the bridge, deleted
// with the record (remove; desktopHomes.ts); without it (some tests), its HOME is a fresh dir of
// the sandbox's own, gone when it stops.
//
// A HOME is its owner's: a desktop given to another person is stopped and its HOME deleted
// (reconcile, run when a record changes and at every sweep), and ensure() for a new owner never
// finds the old one's running desktop or HOME. Each HOME is held to homeQuotaBytes (homeQuota.ts):
// by its own file system as root, else measured, a desktop over it stopped and refused a start.
// A start may come with a limit on the desktops of the same owner running at once (a member's,
// an admin's setting): past it the start is refused, saying what to do, and nothing is started.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { DesktopParams } from '@overlay-companion/protocol';
import { startLocalDesktop, type LocalDesktop } from '@overlay-companion/gateway';
import type { Logger } from 'pino';
import { DESKTOP_HOMES_DIR, DesktopHomes, type DesktopHome } from './desktopHomes.js';
import { DesktopReachError } from './errors.js';
import { DEFAULT_DESKTOP_HOME_QUOTA_BYTES, overQuotaMessage, usedBytes } from './homeQuota.js';

/** A local desktop nobody used for this long is stopped (it starts again when opened). */
export const DEFAULT_IDLE_STOP_MINUTES = 30;

/** A start refused by the running limit: why, and what the person can do. */
export function tooManyRunningMessage(limit: number): string {
  return `Its owner already has ${String(limit)} local desktop${limit === 1 ? '' : 's'} running, the most a member may at once (an admin sets it in Settings). Close the windows and AI clients of one no longer needed (it stops after its idle time), or ask an admin to raise the limit.`;
}

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
   * The owner of the desktop's record, undefined when the record is gone (the store's answer, not
   * a cache): a desktop whose record went another way than remove(), or whose owner changed, is
   * stopped and its HOME deleted at the next sweep. Absent: never.
   */
  recordOwner?: ((desktopId: string) => Promise<string | undefined>) | undefined;
  /** Bytes one HOME may hold (OC_DESKTOP_HOME_QUOTA); default DEFAULT_DESKTOP_HOME_QUOTA_BYTES. */
  homeQuotaBytes?: number | undefined;
  /** The HOMEs to use (serve shares them with the command line's desktop); default: dataDir's. */
  homes?: DesktopHomes | undefined;
  /**
   * A desktop this pool does not run whose HOME is among `homes` (serve's command-line desktop):
   * reconcile hands it its record's owner (undefined: gone) instead of deleting its HOME.
   */
  elsewhere?:
    | {
        has(desktopId: string): boolean;
        reconcile(desktopId: string, ownerId: string | undefined): Promise<void>;
      }
    | undefined;
  /** Measure HOMEs against the quota even as root, instead of a file system each (tests). */
  measureHomes?: boolean | undefined;
  /**
   * A desktop's kept HOME was made for someone else, or for nobody known (from before owners were
   * recorded): deleted, the desktop starts on an empty one (serve audits it).
   */
  onHomeReplaced?: ((desktopId: string) => void) | undefined;
  /** A desktop whose HOME was measured over its quota was stopped (serve audits it). */
  onOverQuota?: ((desktopId: string, usedBytes: number, quotaBytes: number) => void) | undefined;
  /** Starts a desktop; tests may replace it. */
  start?: typeof startLocalDesktop;
}

interface Running {
  /** The record's owner it was started for. */
  ownerId: string;
  /** Its HOME, once known (kept; its limit decides whether the sweep measures it). */
  home?: DesktopHome;
  ready: Promise<RunningLocal>;
  lastUsed: number;
  idleMs: number;
  revoke?: () => void;
}

export class LocalDesktopPool {
  private readonly running = new Map<string, Running>();
  private readonly sweep: NodeJS.Timeout;
  private readonly homes: DesktopHomes | undefined;
  private warnedMeasured = false;

  constructor(private readonly options: LocalDesktopPoolOptions) {
    this.homes =
      options.homes ??
      (options.dataDir === undefined
        ? undefined
        : new DesktopHomes(join(options.dataDir, DESKTOP_HOMES_DIR), {
            measureOnly: options.measureHomes === true,
          }));
    this.sweep = setInterval(() => void this.stopIdle(Date.now()), IDLE_SWEEP_MS);
    this.sweep.unref();
  }

  /**
   * The desktop's VNC socket, starting it when it is not running. `ownerId` is the record's owner
   * now: a desktop running for an earlier owner is stopped first, and its HOME is not theirs.
   * `runningLimit`: how many desktops of that owner may run at once, this one included (none:
   * unlimited); a start past it is refused. Counted and claimed in one step, so starts asked at
   * once cannot all pass the check.
   */
  ensure(
    desktopId: string,
    params: DesktopParams,
    ownerId: string,
    runningLimit?: number,
  ): Promise<RunningLocal> {
    const idleMs = (params.idle_stop_minutes ?? DEFAULT_IDLE_STOP_MINUTES) * 60_000;
    const existing = this.running.get(desktopId);
    if (existing !== undefined && existing.ownerId === ownerId) {
      existing.lastUsed = Date.now();
      existing.idleMs = idleMs;
      return existing.ready;
    }
    if (runningLimit !== undefined && this.runningOf(ownerId, desktopId) >= runningLimit) {
      this.options.logger.info(
        { desktopId, runningLimit },
        'refused to start a local desktop: its owner has as many running as they may',
      );
      return Promise.reject(new DesktopReachError(tooManyRunningMessage(runningLimit)));
    }
    // Stopping takes it out of `running` at once; the new start waits for the old one to end.
    const stopped = existing === undefined ? Promise.resolve() : this.stop(desktopId);
    const entry: Running = {
      ownerId,
      ready: stopped.then(() =>
        this.start(desktopId, params, ownerId, (home) => (entry.home = home)),
      ),
      lastUsed: Date.now(),
      idleMs,
    };
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

  /** Desktops of `ownerId` running or starting, other than `except`. */
  private runningOf(ownerId: string, except: string): number {
    let count = 0;
    for (const [id, entry] of this.running) if (id !== except && entry.ownerId === ownerId) count++;
    return count;
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

  /** Stops one desktop now; its HOME stays (unmounted). */
  async stop(desktopId: string): Promise<void> {
    const entry = this.running.get(desktopId);
    if (entry === undefined) return;
    this.running.delete(desktopId);
    entry.revoke?.();
    const started = await entry.ready.catch(() => undefined);
    await started?.desktop.stop();
    // Unless it was started again meanwhile (that start mounted it for itself).
    if (!this.running.has(desktopId)) await this.homes?.release(desktopId);
  }

  /**
   * Brings the desktop in line with its record: gone → removed; given to another person → its
   * desktop stopped and its HOME deleted (the new owner starts with a fresh uid and HOME). True
   * when it removed something. A failed look-up changes nothing.
   */
  async reconcile(desktopId: string): Promise<boolean> {
    const lookUp = this.options.recordOwner;
    if (lookUp === undefined) return false;
    const owner = await lookUp(desktopId).then(
      (found) => ({ found }),
      () => undefined,
    );
    if (owner === undefined) return false;
    const elsewhere = this.options.elsewhere;
    if (elsewhere?.has(desktopId) === true) {
      await elsewhere.reconcile(desktopId, owner.found);
      return false;
    }
    if (owner.found === undefined) {
      this.options.logger.info({ desktopId }, 'removing a local desktop whose record is gone');
      await this.remove(desktopId);
      return true;
    }
    // Each step decides on what is true when it runs: a start for the new owner may come between.
    const entry = this.running.get(desktopId);
    const stopped = entry !== undefined && entry.ownerId !== owner.found;
    if (stopped) await this.stop(desktopId);
    const deleted = (await this.homes?.removeIfNotOwnedBy(desktopId, owner.found)) ?? false;
    if (stopped || deleted)
      this.options.logger.info(
        { desktopId },
        'a local desktop was given to another person: its desktop stopped and its home deleted',
      );
    return stopped || deleted;
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    await Promise.all([...this.running.keys()].map((id) => this.stop(id)));
  }

  /**
   * Stops the desktops nobody used for their idle time as of `now`, and those measured over their
   * HOME's quota; removes those whose record is gone or was given to someone else (every 30 s).
   */
  async stopIdle(now: number): Promise<void> {
    await this.reconcileAll();
    for (const [id, entry] of this.running) {
      if (await this.overQuota(id, entry)) continue;
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

  private get quotaBytes(): number {
    return this.options.homeQuotaBytes ?? DEFAULT_DESKTOP_HOME_QUOTA_BYTES;
  }

  /**
   * Where the HOME's limit is only measured: stops a desktop whose HOME holds more than its quota
   * (true), told to serve (audited) and logged. Its next start is refused saying why (start).
   */
  private async overQuota(id: string, entry: Running): Promise<boolean> {
    if (entry.home?.limit.kind !== 'measured') return false;
    const used = await usedBytes(entry.home.dir).catch(() => 0);
    if (used <= this.quotaBytes) return false;
    this.options.logger.warn(
      { desktopId: id, usedBytes: used, quotaBytes: this.quotaBytes },
      'stopping a local desktop whose home is over its quota',
    );
    await this.stop(id);
    this.options.onOverQuota?.(id, used, this.quotaBytes);
    return true;
  }

  /** reconcile() for every desktop running or with a HOME here. */
  private async reconcileAll(): Promise<void> {
    if (this.options.recordOwner === undefined) return;
    const ids = new Set([...this.running.keys(), ...((await this.homes?.owners()) ?? [])]);
    for (const id of ids) await this.reconcile(id);
  }

  private async start(
    desktopId: string,
    params: DesktopParams,
    ownerId: string,
    gotHome: (home: DesktopHome) => void,
  ): Promise<RunningLocal> {
    // VNC authentication uses at most 8 characters; the socket is the desktop's and the
    // gateway's alone, this is a second lock.
    const password = randomBytes(6).toString('base64url');
    const size =
      this.options.size ??
      (params.width !== undefined && params.height !== undefined
        ? { width: params.width, height: params.height }
        : undefined);
    const started = Date.now();
    const home = await this.homes?.ensure(desktopId, ownerId, this.quotaBytes);
    if (home?.replacedEarlierOwners === true) {
      this.options.logger.warn(
        { desktopId },
        'a local desktop’s kept home was made for someone else (or before owners were recorded): deleted, it starts empty',
      );
      this.options.onHomeReplaced?.(desktopId);
    }
    if (home !== undefined) {
      gotHome(home);
      await this.checkMeasured(desktopId, home);
    }
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

  /** A HOME whose limit is only measured may not start over its quota (the person is told why). */
  private async checkMeasured(desktopId: string, home: DesktopHome): Promise<void> {
    if (home.limit.kind !== 'measured') return;
    if (!this.warnedMeasured) {
      this.warnedMeasured = true;
      this.options.logger.warn(
        { why: home.limit.why },
        'local desktop homes are held to their quota by measuring (every 30 s), not by the file system',
      );
    }
    const used = await usedBytes(home.dir);
    if (used <= this.quotaBytes) return;
    await this.homes?.release(desktopId);
    throw new DesktopReachError(overQuotaMessage(used, this.quotaBytes));
  }
}
