// The HOME and user of the command line's local desktop (`serve --desktop local`), made the way
// a local desktop record's are (desktopHomes.ts): keyed by the command line desktop's record (the
// settings entry CLI_DESKTOP_SETTING) and the person who owns it, a uid of its own, kept through
// restarts of the desktop and the bridge, held to OC_DESKTOP_HOME_QUOTA. Given to another person
// or removed, it is started again (DesktopSupervisor.restartNow) with a fresh uid and HOME, the
// old one deleted: noticed by the pool when there is one, and by watch() every CHECK_MS in any
// case (with --guacd there is no pool). Where the quota is only measured (no root, no loop
// devices), it is enforced like the pool's: a start over it is refused saying why (audited),
// and a running desktop found over it is started again, which refuses it. Before the record
// exists (a first run until setup made an admin) it gets a fresh HOME of the sandbox's own, as
// before, until its next start.
import type { DesktopSandboxOptions } from '@overlay-companion/gateway';
import type { Logger } from 'pino';
import type { Store } from '../store/types.js';
import { CLI_DESKTOP_SETTING } from './desktopDirectory.js';
import type { DesktopHome, DesktopHomes } from './desktopHomes.js';
import { DesktopReachError } from './errors.js';
import { overQuotaMessage, usedBytes } from './homeQuota.js';

/** How often watch() looks at the record's owner and the HOME's size. */
export const CLI_HOME_CHECK_MS = 15_000;

interface Held {
  desktopId: string;
  ownerId: string;
  home: DesktopHome;
}

export class CliDesktopHome {
  /** The record, owner and HOME the running desktop was started with. */
  private held: Held | undefined;

  constructor(
    private readonly options: {
      homes: DesktopHomes;
      store: Store;
      quotaBytes: number;
      logger: Logger;
      /** A start was refused: its HOME was measured over its quota (serve audits it). */
      onOverQuota?:
        ((desktopId: string, usedBytes: number, quotaBytes: number) => void) | undefined;
      /** Its HOME was made for someone else or nobody known, and deleted (serve audits it). */
      onHomeReplaced?: ((desktopId: string) => void) | undefined;
      checkMs?: number | undefined;
    },
  ) {}

  /** The record whose HOME the running desktop has, if any. */
  get desktopId(): string | undefined {
    return this.held?.desktopId;
  }

  /** The sandbox's HOME for the next start: `true` (a fresh one) while there is no record yet. */
  async take(): Promise<true | DesktopSandboxOptions> {
    const { homes, store, quotaBytes, logger } = this.options;
    const remembered = await store.settings.get(CLI_DESKTOP_SETTING);
    const record =
      typeof remembered === 'string' ? await store.desktops.byId(remembered) : undefined;
    if (record === undefined) {
      this.held = undefined;
      logger.info(
        'the command line desktop has no record yet (no admin): it starts with a fresh home this time',
      );
      return true;
    }
    const home = await homes.ensure(record.id, record.ownerId, quotaBytes);
    this.held = { desktopId: record.id, ownerId: record.ownerId, home };
    if (home.replacedEarlierOwners) {
      logger.warn(
        { desktopId: record.id },
        'the command line desktop’s kept home was made for someone else (or before owners were recorded): deleted, it starts empty',
      );
      this.options.onHomeReplaced?.(record.id);
    }
    if (home.limit.kind === 'measured') {
      logger.warn(
        { why: home.limit.why },
        `the command line desktop’s home is held to its quota by measuring (every ${String(Math.round(this.checkMs / 1000))} s), not by the file system (OC_DESKTOP_HOME_QUOTA is hard only as root with loop devices)`,
      );
      const used = await usedBytes(home.dir);
      if (used > quotaBytes) {
        await homes.release(record.id);
        this.options.onOverQuota?.(record.id, used, quotaBytes);
        throw new DesktopReachError(overQuotaMessage(used, quotaBytes));
      }
    }
    return { homeDir: home.dir, ...(home.user === undefined ? {} : { user: home.user }) };
  }

  /** The desktop stopped: its HOME's file system is unmounted. */
  async release(): Promise<void> {
    if (this.held !== undefined) await this.options.homes.release(this.held.desktopId);
  }

  /**
   * Whether the running desktop's HOME is still its record's owner's: false once the record was
   * given to someone else or removed (the desktop must start again, on a fresh HOME).
   */
  stillOwnedBy(desktopId: string, ownerId: string | undefined): boolean {
    return this.held?.desktopId !== desktopId || this.held.ownerId === ownerId;
  }

  /**
   * Every CHECK_MS: when the record changed hands or is gone, or the HOME is measured over its
   * quota, `restart` starts the desktop again (unless it was meanwhile); a removed record's HOME
   * is deleted once the desktop no longer has it. Returns how to stop watching.
   */
  watch(restart: (reason: string, needed: () => boolean) => Promise<void>): () => void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void this.check(restart)
        .catch((err: unknown) =>
          this.options.logger.warn({ err }, 'could not check the command line desktop’s home'),
        )
        .finally(() => (busy = false));
    }, this.checkMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private get checkMs(): number {
    return this.options.checkMs ?? CLI_HOME_CHECK_MS;
  }

  private async check(restart: (reason: string, needed: () => boolean) => Promise<void>) {
    const held = this.held;
    if (held === undefined) return;
    const { homes, store, quotaBytes } = this.options;
    const record = await store.desktops.byId(held.desktopId);
    const startedAgain = (): boolean => this.held !== held;
    if (!this.stillOwnedBy(held.desktopId, record?.ownerId)) {
      await restart('the command line desktop changed hands', () => !startedAgain());
      if (record === undefined && startedAgain()) await homes.remove(held.desktopId);
      return;
    }
    if (held.home.limit.kind !== 'measured') return;
    const used = await usedBytes(held.home.dir);
    if (used > quotaBytes) {
      await restart('the command line desktop’s home is over its quota', () => !startedAgain());
    }
  }
}
