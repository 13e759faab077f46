// What the recordings' routes share: who may see which recording (of a desktop they may view; a
// removed desktop's, or one made before the desktop was given to someone else, its owner's at the
// time and admins'; anything else answers 404, like a recording that does not exist), who may
// delete it (the desktop's owner or an admin), and how a
// person's viewing, exporting and deleting and their changes to a desktop's recording setting
// are audited. A recording out of this bridge's reach is refused to every read with a 503 saying
// why — where it is to an admin, only that an admin can help to anyone else.
import type { AuditKind } from '@overlay-companion/protocol';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import { auditDesktopChange } from '../audit/desktopChange.js';
import type { Access } from '../auth/access.js';
import { accessOf, mayManage } from '../desktops/desktopAccess.js';
import { apiError } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { DesktopPlanes } from '../mcp/desktopPlanes.js';
import type { DesktopGrant, DesktopRecord, PersonRecord, RecordingRecord } from '../store/types.js';
import type { Recordings } from './recordingLifecycle.js';
import { UNREACHABLE_FOR_MEMBERS } from './storage/unreachable.js';

export interface RecordingRoutesDeps {
  access: Access;
  recordings: Recordings;
  planes: DesktopPlanes;
  logger: Logger;
}

export const RECORDINGS_BASE = '/api/recordings';
export const NO_DESKTOP = 'No such desktop of yours; reload the list.';
const NOT_FOUND = 'No such recording of yours; reload the list.';
const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** What a person did with a recording, as the audit names it. */
type RecordingAuditKind = Extract<AuditKind, `recording_${string}`>;

/** A recording the signed-in person may see, with its desktop and whether they may delete it. */
export interface Found {
  ok: true;
  person: PersonRecord;
  recording: RecordingRecord;
  desktop: DesktopRecord | undefined;
  mayDelete: boolean;
}

export type RouteAccess = ReturnType<typeof routeAccess>;

/**
 * Whether `person` sees `recording` (of `desktop`, with the grants on it that concern them), and
 * may delete it; undefined: not theirs to see. One made while another person owned the desktop
 * (given away since) is treated as a removed desktop's: its owner at the time and admins — the
 * new owner and the desktop's grantees never saw those screens, and its owner then still does.
 */
export function recordingSeen(
  person: PersonRecord,
  recording: RecordingRecord,
  desktop: DesktopRecord | undefined,
  grants: readonly DesktopGrant[],
): { mayDelete: boolean } | undefined {
  if (
    desktop === undefined ||
    (recording.ownerId !== null && recording.ownerId !== desktop.ownerId)
  ) {
    const mine = person.role === 'admin' || recording.ownerId === person.id;
    return mine ? { mayDelete: true } : undefined;
  }
  const level = accessOf(person, desktop, grants);
  return level === null ? undefined : { mayDelete: mayManage(level) };
}

export function routeAccess(deps: RecordingRoutesDeps) {
  const { access, recordings } = deps;
  const store = access.store;

  /** The desktop and what the person may do with it; `access` null: not theirs to see. */
  const desktopFor = async (
    person: PersonRecord,
    desktopId: string,
  ): Promise<{ desktop: DesktopRecord | undefined; access: ReturnType<typeof accessOf> }> => {
    const desktop = await store.desktops.byId(desktopId);
    if (desktop === undefined) return { desktop, access: null };
    return { desktop, access: accessOf(person, desktop, await store.desktops.grants(desktopId)) };
  };

  /** Whether the person sees the recording (recordingSeen), with its desktop. */
  const visible = async (
    person: PersonRecord,
    recording: RecordingRecord,
  ): Promise<{ desktop: DesktopRecord | undefined; mayDelete: boolean } | undefined> => {
    const desktop = await store.desktops.byId(recording.desktopId);
    const grants = desktop === undefined ? [] : await store.desktops.grants(desktop.id);
    const seen = recordingSeen(person, recording, desktop, grants);
    return seen === undefined ? undefined : { desktop, ...seen };
  };

  /**
   * The signed-in person and the recording they may see, or the 404 to answer with — or, for a
   * read, the 503 of a recording out of this bridge's reach, saying why as the person may read
   * it (`toDelete`: the caller decides about such a one).
   */
  const load = async (
    c: Context<BridgeEnv>,
    { toDelete = false }: { toDelete?: boolean } = {},
  ): Promise<Found | { ok: false; response: Response }> => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return { ok: false, response: apiError(c, 401, 'Sign in first.') };
    const id = c.req.param('id') ?? '';
    const recording = ID.test(id) ? await store.recordings.byId(id) : undefined;
    const seen = recording === undefined ? undefined : await visible(person, recording);
    if (recording === undefined || seen === undefined)
      return { ok: false, response: apiError(c, 404, NOT_FOUND) };
    const unavailable = unavailableFor(person, recording);
    if (unavailable !== undefined && !toDelete) {
      c.header('Cache-Control', 'no-store');
      return { ok: false, response: apiError(c, 503, unavailable) };
    }
    return { ok: true, person, recording, ...seen };
  };

  /**
   * Why the recording cannot be played here, as `person` reads it (undefined: it can): where it
   * is and what to do for an admin; for anyone else, that it is out of reach and an admin can
   * help — the S3 store's bucket and prefix are the admins' to know.
   */
  const unavailableFor = (person: PersonRecord, recording: RecordingRecord): string | undefined => {
    const reason = recordings.unreachable(recording);
    if (reason === undefined || person.role === 'admin') return reason;
    return UNREACHABLE_FOR_MEMBERS;
  };

  const audit = (found: Found, kind: RecordingAuditKind, what: string): void => {
    const { person, recording, desktop } = found;
    access.audit.record({
      kind,
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      summary: `recording ${recording.id} of desktop "${desktop?.name ?? recording.desktopId}"`,
      outcome: 'ok',
      detail: `recording ${what}`,
    });
  };

  /** A change to a desktop's recording setting, as the audit names desktop changes. */
  const auditSetting = (person: PersonRecord, desktop: DesktopRecord, detail: string): void =>
    auditDesktopChange(access.audit, person, 'desktop_changed', desktop, detail);

  /** The recording's event track; undefined when its files are gone. */
  const eventsOf = (recording: RecordingRecord) =>
    recordings.files(recording).read(recording.id, { kind: 'events' }, (reader) => reader.events());

  return { desktopFor, load, unavailableFor, audit, auditSetting, eventsOf };
}
