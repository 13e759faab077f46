// Keeps the command line's local desktop running: when its Xvnc (or the sandbox around it) ends
// without being asked to, the reason is logged and a fresh desktop is started in its place —
// its new VNC socket allowed on the gateway, the old one taken back — at most MAX_RESTARTS times
// in RESTART_WINDOW_MS, after which it stays down and says so. The tunnel asks `current` for the
// socket to connect to and is told in words while a restart is under way; /readyz asks `probe`.
import { connect } from 'node:net';
import type { LocalDesktop } from '@overlay-companion/gateway';
import type { Logger } from 'pino';
import { DesktopReachError } from './errors.js';

/** Restarts allowed in RESTART_WINDOW_MS before the desktop is left down. */
export const MAX_RESTARTS = 5;
export const RESTART_WINDOW_MS = 10 * 60_000;
/** Pause before a restart (a desktop that dies at once must not spin). */
const RESTART_DELAY_MS = 1_500;

export type SupervisedState = 'running' | 'restarting' | 'down';

export interface DesktopSupervisorOptions {
  /** Starts the desktop (the same way each time). */
  start(): Promise<LocalDesktop>;
  /** Lets the gateway open a new desktop's VNC socket; returns how to take that back. */
  allowSocket(path: string): () => void;
  logger: Logger;
  maxRestarts?: number;
  windowMs?: number;
}

export class DesktopSupervisor {
  private desktop: LocalDesktop;
  private revoke: (() => void) | undefined;
  private stateNow: SupervisedState = 'running';
  private readonly restartsAt: number[] = [];
  private stopping = false;
  private restarting: Promise<void> | undefined;
  /** Why the desktop is down when its start was refused in words (e.g. its HOME's quota). */
  private downReason: string | undefined;

  private constructor(
    first: LocalDesktop,
    private readonly options: DesktopSupervisorOptions,
  ) {
    this.desktop = first;
    this.watch(first);
  }

  /** Starts the desktop and watches it. */
  static async start(options: DesktopSupervisorOptions): Promise<DesktopSupervisor> {
    return new DesktopSupervisor(await options.start(), options);
  }

  /** The desktop now (the last one started, also while a restart is under way). */
  get current(): LocalDesktop {
    return this.desktop;
  }

  get state(): SupervisedState {
    return this.stateNow;
  }

  /** The running desktop, or why there is none (in words for the person). */
  running(): LocalDesktop {
    if (this.stateNow === 'running') return this.desktop;
    if (this.stateNow === 'down' && this.downReason !== undefined) {
      throw new DesktopReachError(this.downReason);
    }
    throw new DesktopReachError(
      this.stateNow === 'restarting'
        ? 'The local desktop stopped and is being started again; the viewer reconnects by itself in a moment.'
        : `The local desktop stopped ${this.restartsAt.length} times in ${Math.round((this.options.windowMs ?? RESTART_WINDOW_MS) / 60_000)} minutes and is not started again: the bridge's log says why. Restart the bridge once that is fixed.`,
    );
  }

  /** Whether the desktop answers now: running, and its VNC server greets on its socket. */
  probe(timeoutMs: number): Promise<boolean> {
    if (this.stateNow !== 'running') return Promise.resolve(false);
    return greets(this.desktop.rfbPath, timeoutMs);
  }

  /**
   * Starts a fresh desktop in place of the running one now (not counted as a restart: it was
   * asked for, e.g. the desktop was given to another person and must not keep its HOME), once
   * any restart under way is over and if `needed()` still says so.
   */
  async restartNow(reason: string, needed: () => boolean = () => true): Promise<void> {
    await this.restarting?.catch(() => undefined);
    // Asked twice while a restart ran: the one that ran may have done it.
    if (this.stopping || !needed()) return;
    this.options.logger.info({ reason }, 'starting the local desktop again');
    this.restarting = this.replace();
    await this.restarting;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.restarting?.catch(() => undefined);
    this.revoke?.();
    await this.desktop.stop();
  }

  private watch(desktop: LocalDesktop): void {
    void desktop.exited.then((how) => {
      if (how.stopped || this.stopping || desktop !== this.desktop) return;
      this.restarting = this.restart(how);
    });
  }

  private async restart(how: { code: number | null; signal: string | null }): Promise<void> {
    const { logger } = this.options;
    const now = Date.now();
    const windowMs = this.options.windowMs ?? RESTART_WINDOW_MS;
    while (this.restartsAt.length > 0 && (this.restartsAt[0] ?? 0) < now - windowMs)
      this.restartsAt.shift();
    if (this.restartsAt.length >= (this.options.maxRestarts ?? MAX_RESTARTS)) {
      this.stateNow = 'down';
      logger.error(
        { code: how.code, signal: how.signal, restarts: this.restartsAt.length },
        'the local desktop stopped again and is not restarted any more',
      );
      return;
    }
    this.restartsAt.push(now);
    logger.warn(
      { code: how.code, signal: how.signal, restart: this.restartsAt.length },
      'the local desktop stopped by itself; starting it again',
    );
    await this.replace(RESTART_DELAY_MS);
  }

  /** Stops the desktop (if still running) and starts a fresh one after `delayMs`. */
  private async replace(delayMs = 0): Promise<void> {
    const { logger } = this.options;
    this.stateNow = 'restarting';
    // Its sockets are gone with it; clean up what it left (work dir, display link) first.
    await this.desktop.stop().catch(() => undefined);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (this.stopping) return;
    try {
      const fresh = await this.options.start();
      if (this.stopping) {
        await fresh.stop();
        return;
      }
      const previousRevoke = this.revoke;
      this.revoke = this.options.allowSocket(fresh.rfbPath);
      previousRevoke?.();
      this.desktop = fresh;
      this.stateNow = 'running';
      this.downReason = undefined;
      logger.info({ display: fresh.display }, 'the local desktop runs again');
      this.watch(fresh);
    } catch (err) {
      logger.error({ err }, 'the local desktop could not be started again');
      this.downReason = err instanceof DesktopReachError ? err.message : undefined;
      this.stateNow = 'down';
    }
  }
}

/** True when a VNC server answers "RFB …" on this Unix socket within `timeoutMs`. */
export function greets(path: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('error', () => done(false));
    socket.once('data', (chunk: Buffer) => done(chunk.toString('latin1').startsWith('RFB ')));
  });
}
