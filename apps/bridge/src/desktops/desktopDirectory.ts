// Which desktops there are and who may do what on each, as the runtime asks it on every socket
// and tool call: the desktop records and their grants (store.desktops), kept in memory and
// reloaded when the /api routes change one (invalidate), the access a person has (accessOf, the
// one rule), the desktops a person — or one of their tokens — may use, and the default desktop a
// window or an MCP session starts on. The desktop the command line names (serve's --desktop
// local / --vnc / --rdp, `cliDesktop`) is made here once an admin exists, owned by the first
// admin, and remembered by id (a settings entry), so renaming it keeps it. With per-person local
// desktops, a person's own sandboxed desktop is made here the first time they need one.
import type { DesktopAccessLevel, DesktopKind, DesktopParams } from '@overlay-companion/protocol';
import { firstActiveAdmin } from '../auth/apiTokens.js';
import type { Logger } from 'pino';
import { newId } from '../store/ids.js';
import type { DesktopGrant, DesktopRecord, PersonRecord, Store } from '../store/types.js';
import { StoreConflictError } from '../store/types.js';
import { accessOf } from './desktopAccess.js';

export interface DesktopEntry {
  record: DesktopRecord;
  grants: DesktopGrant[];
}

export interface PersonDesktop {
  entry: DesktopEntry;
  access: DesktopAccessLevel;
}

export type PersonLike = Pick<PersonRecord, 'id' | 'role' | 'displayName' | 'username'>;

export interface DesktopDirectoryOptions {
  store: Store;
  logger: Logger;
  /**
   * One local desktop per person (`serve --local-desktops per-person`): a person with none of
   * their own gets one, owned by them, the first time they need a desktop. The parameters come
   * from here (e.g. the idle stop).
   */
  perPersonLocal?: { params: DesktopParams } | undefined;
  /** The desktop serve's command line names (made once; its target is serve's own). */
  cliDesktop?: CliDesktop | undefined;
}

export interface CliDesktop {
  name: string;
  kind: DesktopKind;
  params: DesktopParams;
  /** Its credentials sealed for the new record's id (so the record says it has a password). */
  seal?: ((desktopId: string) => string | null) | undefined;
}

/** The settings entry that remembers which record is the command line's desktop. */
export const CLI_DESKTOP_SETTING = 'cli_desktop_id';

/** Orders a person's desktops for choosing a default: own first, then by what they may do. */
const PREFERENCE: Readonly<Record<DesktopAccessLevel, number>> = {
  owner: 0,
  control: 1,
  admin: 2,
  view: 3,
};

export class DesktopDirectory {
  private entries: Promise<Map<string, DesktopEntry>> | undefined;
  private cliId: string | undefined;
  private readonly making = new Map<string, Promise<DesktopEntry | undefined>>();
  private readonly invalidated = new Set<() => void>();

  constructor(private readonly options: DesktopDirectoryOptions) {}

  /** Forget what was loaded (a desktop or grant changed); the next question reloads. */
  invalidate(): void {
    this.entries = undefined;
    for (const listener of this.invalidated) listener();
  }

  /** Told at every invalidate(): who may see what may have changed (the fleet feed re-reads). */
  onInvalidated(listener: () => void): () => void {
    this.invalidated.add(listener);
    return () => this.invalidated.delete(listener);
  }

  /** The record the command line's desktop is (undefined before an admin exists). */
  async cliDesktopId(): Promise<string | undefined> {
    await this.all();
    return this.cliId;
  }

  async get(desktopId: string): Promise<DesktopEntry | undefined> {
    return (await this.all()).get(desktopId);
  }

  async list(): Promise<DesktopEntry[]> {
    return [...(await this.all()).values()];
  }

  /** What `person` may do on the desktop; undefined when nothing (or no such desktop). */
  async accessFor(person: PersonLike, desktopId: string): Promise<PersonDesktop | undefined> {
    const entry = await this.get(desktopId);
    if (entry === undefined) return undefined;
    const access = accessOf(person, entry.record, entry.grants);
    return access === null ? undefined : { entry, access };
  }

  /**
   * The desktops `person` may use, best first (see PREFERENCE); `only` narrows them to a token's
   * list (null: all of them).
   */
  async listFor(
    person: PersonLike,
    only: readonly string[] | null = null,
  ): Promise<PersonDesktop[]> {
    await this.ensureOwnLocal(person);
    const found: PersonDesktop[] = [];
    for (const entry of await this.list()) {
      if (only !== null && !only.includes(entry.record.id)) continue;
      const access = accessOf(person, entry.record, entry.grants);
      if (access !== null) found.push({ entry, access });
    }
    return found.sort(
      (a, b) =>
        rank(person, a) - rank(person, b) || a.entry.record.name.localeCompare(b.entry.record.name),
    );
  }

  /** The desktop a window or session without a choice starts on, if the person has any. */
  async defaultFor(
    person: PersonLike,
    only: readonly string[] | null = null,
  ): Promise<PersonDesktop | undefined> {
    return (await this.listFor(person, only))[0];
  }

  /**
   * A desktop named by id or by name (case-insensitive), if `person` may use it (and it is in
   * `only`, a token's list).
   */
  async find(
    person: PersonLike,
    ref: string,
    only: readonly string[] | null = null,
  ): Promise<
    | { found: PersonDesktop }
    | { missing: 'no_such' | 'no_access' | 'not_in_token'; entry?: DesktopEntry }
  > {
    const all = await this.list();
    const wanted = ref.toLowerCase();
    const entry =
      all.find((e) => e.record.id === ref) ??
      all.find((e) => e.record.name.toLowerCase() === wanted);
    if (entry === undefined) return { missing: 'no_such' };
    const access = accessOf(person, entry.record, entry.grants);
    if (access === null) return { missing: 'no_access', entry };
    if (only !== null && !only.includes(entry.record.id)) return { missing: 'not_in_token', entry };
    return { found: { entry, access } };
  }

  private all(): Promise<Map<string, DesktopEntry>> {
    if (this.entries === undefined) {
      const loading = this.load();
      // A failed load must not stay cached: the next question tries again.
      loading.catch(() => {
        if (this.entries === loading) this.entries = undefined;
      });
      this.entries = loading;
    }
    return this.entries;
  }

  private async load(): Promise<Map<string, DesktopEntry>> {
    const { store } = this.options;
    if (this.options.cliDesktop !== undefined) await this.ensureCliDesktop(this.options.cliDesktop);
    const records = await store.desktops.list();
    const entries = await Promise.all(
      records.map(async (record) => ({ record, grants: await store.desktops.grants(record.id) })),
    );
    return new Map(entries.map((e) => [e.record.id, e]));
  }

  private async ensureCliDesktop(cli: CliDesktop): Promise<void> {
    const { store, logger } = this.options;
    const remembered = await store.settings.get(CLI_DESKTOP_SETTING);
    const existing =
      typeof remembered === 'string' ? await store.desktops.byId(remembered) : undefined;
    if (existing !== undefined) {
      this.cliId = existing.id;
      // The command line is the truth for its desktop's connection: a restart with other flags
      // updates it (its name, owner and grants stay as people set them).
      if (
        existing.kind === cli.kind &&
        JSON.stringify(existing.params) !== JSON.stringify(cli.params)
      )
        await store.desktops.update(existing.id, {
          params: cli.params,
          secret: cli.seal?.(existing.id) ?? null,
        });
      return;
    }
    const admin = await firstActiveAdmin(store);
    if (admin === undefined) {
      // Not yet (first run: setup makes the admin); the next question looks again. Nothing
      // changed, so no listener is told (one that re-reads would ask again, and again).
      queueMicrotask(() => {
        this.entries = undefined;
      });
      return;
    }
    const id = newId('dsk');
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const record = await store.desktops.add({
          id,
          name: attempt === 0 ? cli.name : `${cli.name} ${attempt + 1}`,
          kind: cli.kind,
          params: cli.params,
          secret: cli.seal?.(id) ?? null,
          ownerId: admin.id,
        });
        await store.settings.set(CLI_DESKTOP_SETTING, record.id);
        this.cliId = record.id;
        logger.info({ desktopId: record.id, name: record.name }, 'made the command line desktop');
        return;
      } catch (err) {
        if (!(err instanceof StoreConflictError)) throw err;
      }
    }
  }

  /** Per-person local desktops: make the person's own one if they have none yet. */
  private async ensureOwnLocal(person: PersonLike): Promise<void> {
    const perPerson = this.options.perPersonLocal;
    if (perPerson === undefined) return;
    const owns = (await this.list()).some(
      (e) => e.record.ownerId === person.id && e.record.kind === 'local',
    );
    if (owns) return;
    let making = this.making.get(person.id);
    if (making === undefined) {
      making = this.makeOwnLocal(person, perPerson.params).finally(() =>
        this.making.delete(person.id),
      );
      this.making.set(person.id, making);
    }
    await making;
  }

  private async makeOwnLocal(
    person: PersonLike,
    params: DesktopParams,
  ): Promise<DesktopEntry | undefined> {
    const { store, logger } = this.options;
    for (let attempt = 0; attempt < 5; attempt++) {
      const name =
        attempt === 0
          ? `${person.username}'s desktop`
          : `${person.username}'s desktop ${attempt + 1}`;
      try {
        const record = await store.desktops.add({
          id: newId('dsk'),
          name,
          kind: 'local',
          params,
          secret: null,
          ownerId: person.id,
        });
        logger.info(
          { desktopId: record.id, personId: person.id },
          'made a local desktop for a person',
        );
        this.invalidate();
        return { record, grants: [] };
      } catch (err) {
        if (!(err instanceof StoreConflictError)) throw err;
      }
    }
    return undefined;
  }
}

function rank(person: PersonLike, desktop: PersonDesktop): number {
  // The desktop the person is in charge of comes before others they merely may watch.
  const inCharge = (desktop.entry.record.inChargeId ?? desktop.entry.record.ownerId) === person.id;
  return PREFERENCE[desktop.access] * 2 + (inCharge ? 0 : 1);
}
