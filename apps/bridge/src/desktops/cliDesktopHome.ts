// The HOME and user of the command line's local desktop (`serve --desktop local`), made the way
// a local desktop record's are (desktopHomes.ts): keyed by the command line desktop's record (the
// settings entry CLI_DESKTOP_SETTING) and the person who owns it, a uid of its own, kept through
// restarts of the desktop and the bridge, held to OC_DESKTOP_HOME_QUOTA. Given to another person,
// it is started again (DesktopSupervisor.restartNow) with a fresh uid and HOME, the old one
// deleted. Before the record exists (a first run until setup made an admin) it gets a fresh HOME
// of the sandbox's own, as before, until its next start.
import type { DesktopSandboxOptions } from '@overlay-companion/gateway';
import type { Logger } from 'pino';
import type { Store } from '../store/types.js';
import { CLI_DESKTOP_SETTING } from './desktopDirectory.js';
import type { DesktopHomes } from './desktopHomes.js';

export class CliDesktopHome {
  /** The record and owner the running desktop's HOME was made for. */
  private held: { desktopId: string; ownerId: string } | undefined;

  constructor(
    private readonly options: {
      homes: DesktopHomes;
      store: Store;
      quotaBytes: number;
      logger: Logger;
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
    this.held = { desktopId: record.id, ownerId: record.ownerId };
    if (home.limit.kind === 'measured')
      logger.warn(
        { why: home.limit.why },
        'the command line desktop’s home has no size limit of its own (OC_DESKTOP_HOME_QUOTA needs root and loop devices)',
      );
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
}
