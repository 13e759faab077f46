// Which desktop an MCP session works on, and whether its AI may act there: the desktop a call's
// optional `desktop` argument names, else the one select_desktop chose, else the token's only
// desktop or the person's default (desktopDirectory.ts). A token limited to some desktops never
// reaches another; a desktop whose person in charge is not the token's person admits only the
// watcher tools (WATCHER_TOOLS: list, select, and looking at the screen). Every refusal names the
// desktop and what the person must grant or hand over. While the store is unavailable, the last
// answer for the same desktop reference stands in for a short while (as the token's lookup does
// in auth/apiTokens.ts), so an AI at work is not stopped by a database restart.
// The token's person is read from the store once and then kept while nothing about people
// changed: every change to a person (role, name, disabled, removed) — made here or told by
// another bridge of the site — invalidates the token lookups (ApiTokenAuth.invalidate), whose
// count of changes this cache compares on every call; it is also re-read at least as often as a
// token lookup is, in case the site's message about a change was lost.
import { ProtocolError, WATCHER_TOOLS, type ToolName } from '@overlay-companion/protocol';
import type { z } from 'zod';
import {
  CACHE_MS as TOKEN_LOOKUP_CACHE_MS,
  type ApiTokenAuth,
  type McpPrincipal,
} from '../auth/apiTokens.js';
import type { DesktopDirectory, PersonDesktop } from '../desktops/desktopDirectory.js';
import { storeOutage } from '../store/errors.js';
import type { PersonRecord, Store } from '../store/types.js';
import type { DesktopPlane, DesktopPlanes } from './desktopPlanes.js';
import type { ListDesktopsResult } from '@overlay-companion/protocol';

export interface SessionDesktopDeps {
  /** The people (store) and, for when they change, the token lookups (ApiTokenAuth.changes). */
  access: { store: Pick<Store, 'people'>; tokens: Pick<ApiTokenAuth, 'changes'> };
  directory: DesktopDirectory;
  planes: DesktopPlanes;
}

export type DesktopSummaries = z.output<typeof ListDesktopsResult>;

/** How old the last answer may be to stand in while the store is unavailable. */
const OUTAGE_STAND_IN_MS = 5 * 60_000;

export class SessionDesktop {
  /** The desktop select_desktop chose (or the first call used); undefined before. */
  private selectedId: string | undefined;
  private joined: DesktopPlane | undefined;
  /** The last desktop found per reference ('' for none), for an outage of the store. */
  private readonly lastFound = new Map<string, { found: PersonDesktop; at: number }>();
  /** The token's person as last read, with the count of people changes it was read at. */
  private known: { person: PersonRecord; changes: number; at: number } | undefined;

  constructor(
    private readonly deps: SessionDesktopDeps,
    private readonly principal: McpPrincipal,
    /** The session joins and leaves planes (their sessions set) through these. */
    private readonly membership: {
      join(plane: DesktopPlane): void;
      leave(plane: DesktopPlane): void;
    },
  ) {}

  /** The plane the session belongs to now (for events, AI-clients lists), if any. */
  get current(): DesktopPlane | undefined {
    return this.joined;
  }

  /**
   * The plane a call of `tool` works on (`ref`: its `desktop` argument), checked: the token
   * may use the desktop, and unless the tool only looks, this token's person is in charge.
   */
  async forCall(tool: ToolName, ref: string | undefined): Promise<DesktopPlane> {
    const found = await this.findThroughOutage(ref ?? this.selectedId);
    const plane = await this.deps.planes.get(found.entry.record.id);
    if (plane === undefined)
      throw new ProtocolError(
        'viewer_unavailable',
        `The desktop ${found.entry.record.name} was just removed; call list_desktops.`,
      );
    // The session settles on the first desktop it used, so its events and AI-clients entry
    // live there; only select_desktop moves it later.
    if (this.joined === undefined && ref === undefined) this.settle(plane);
    const inCharge = plane.inCharge();
    if (inCharge.id !== this.principal.personId && !WATCHER_TOOLS.has(tool)) {
      const grant =
        found.access === 'view'
          ? `${this.principal.personName} has only a view grant there, so their AI may only look; an owner or admin must give them control, then ${inCharge.name} must hand the charge over`
          : `ask ${inCharge.name} to hand the charge over to ${this.principal.personName} (the charge menu in the viewer)`;
      throw new ProtocolError(
        'permission_denied',
        `${inCharge.name} is in charge of the desktop "${plane.desktopName}", so only their AI may act there; this AI may only take screenshots and read its display info. To act, ${grant}. Or select_desktop another desktop (list_desktops shows where this AI may act).`,
      );
    }
    return plane;
  }

  /** select_desktop: the session works on `plane` from now on. */
  select(plane: DesktopPlane): void {
    this.selectedId = plane.desktopId;
    this.settle(plane);
  }

  /** list_desktops. */
  async list(): Promise<DesktopSummaries> {
    const person = await this.person();
    const mine = await this.deps.directory.listFor(person, this.principal.desktopIds);
    const selected = this.joined?.desktopId ?? this.selectedId ?? mine[0]?.entry.record.id ?? null;
    const desktops = await Promise.all(
      mine.map(async (d) => {
        const plane = await this.deps.planes.get(d.entry.record.id);
        const inCharge = plane?.inCharge();
        return {
          id: d.entry.record.id,
          name: d.entry.record.name,
          kind: d.entry.record.kind,
          in_charge: inCharge?.name ?? 'nobody',
          access: d.access,
          ai_may_act: inCharge?.id === this.principal.personId,
          selected: d.entry.record.id === selected,
        };
      }),
    );
    return { desktops, selected };
  }

  /** The session ended: it leaves its plane. */
  close(): void {
    if (this.joined !== undefined) this.membership.leave(this.joined);
    this.joined = undefined;
  }

  private settle(plane: DesktopPlane): void {
    if (this.joined === plane) return;
    if (this.joined !== undefined) this.membership.leave(this.joined);
    this.joined = plane;
    this.membership.join(plane);
  }

  private async person(): Promise<PersonRecord> {
    const changes = this.deps.access.tokens.changes();
    const now = Date.now();
    const known = this.known;
    if (known !== undefined && known.changes === changes && now - known.at < TOKEN_LOOKUP_CACHE_MS)
      return known.person;
    this.known = undefined;
    const person = await this.deps.access.store.people.byId(this.principal.personId);
    if (person === undefined || person.disabled)
      throw new ProtocolError('permission_denied', "This token's person can no longer sign in.");
    // A read that overlapped a change may predate it: used for this call, not kept.
    if (this.deps.access.tokens.changes() === changes) this.known = { person, changes, at: now };
    return person;
  }

  private async findThroughOutage(ref: string | undefined): Promise<PersonDesktop> {
    const key = ref ?? '';
    try {
      const found = await this.find(ref);
      this.lastFound.set(key, { found, at: Date.now() });
      return found;
    } catch (err) {
      // Only an answer from just before the outage: a grant withdrawn since was written to the
      // store, and a call made after that would have replaced this answer.
      const last = this.lastFound.get(key);
      if (storeOutage(err) === undefined || last === undefined) throw err;
      if (Date.now() - last.at > OUTAGE_STAND_IN_MS) throw err;
      return last.found;
    }
  }

  private async find(ref: string | undefined): Promise<PersonDesktop> {
    const person = await this.person();
    const only = this.principal.desktopIds;
    const { directory } = this.deps;
    if (ref === undefined) {
      const fallback = await directory.defaultFor(person, only);
      if (fallback === undefined)
        throw new ProtocolError(
          'permission_denied',
          only === null
            ? `${person.displayName} has no desktop yet: an admin must add one or grant them one on the Desktops page.`
            : `None of the desktops this token names is open to ${person.displayName} any more: make a token for a desktop they may use (the config page), or ask an admin for a grant.`,
        );
      return fallback;
    }
    const result = await directory.find(person, ref, only);
    if ('found' in result) return result.found;
    // A desktop the person may not see is answered like one that does not exist: its name, and
    // whether there is one by that id or name at all, are not the AI's to learn.
    const quoted = JSON.stringify(ref.slice(0, 100));
    if (result.missing === 'not_in_token')
      throw new ProtocolError(
        'permission_denied',
        `This token may not use the desktop "${result.entry?.record.name ?? ref}": make a token that names it (or all desktops) on the config page.`,
      );
    throw new ProtocolError(
      'permission_denied',
      `${person.displayName} may use no desktop ${quoted}: call list_desktops for the ones this token may use. To use another, its owner or an admin must grant ${person.displayName} view (to look) or control (to let their AI act) on the Desktops page.`,
    );
  }
}
