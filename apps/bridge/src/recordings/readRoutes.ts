// The recordings themselves over HTTP: the list of those the person may see (routeAccess.ts;
// one kept where this bridge cannot reach says why it cannot be played), each one's Guacamole
// stream (for Guacamole.SessionRecording; viewing is audited), its event track, and its deletion
// by the desktop's owner or an admin (audited; refused while it is being made, and to all but an
// admin while its row has no end: being made on another bridge of the site). One out of this
// bridge's reach (storage/unreachable.ts) an admin alone removes from the list: its objects stay
// where they are, which the audit says.
import { stat } from 'node:fs/promises';
import { recordingPaths } from '@overlay-companion/recording';
import type { Hono } from 'hono';
import { apiError } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { PersonRecord, RecordingRecord } from '../store/types.js';
import {
  RECORDINGS_BASE as BASE,
  recordingSeen,
  type RecordingRoutesDeps,
  type RouteAccess,
} from './routeAccess.js';
import { placeText } from './storage/unreachable.js';

const STILL_BEING_MADE =
  'This recording is still being made: turn the desktop’s recording off (or close it) first.';

export function mountReadRoutes(
  app: Hono<BridgeEnv>,
  deps: RecordingRoutesDeps,
  { load, unavailableFor, audit, eventsOf }: RouteAccess,
): void {
  const { access, recordings } = deps;
  const store = access.store;

  const view = (
    person: PersonRecord,
    recording: RecordingRecord,
    name: string,
    live: ReadonlySet<string>,
  ) => {
    const isLive = live.has(recording.id);
    const unavailable = unavailableFor(person, recording);
    const end = recording.endedAt ?? (isLive ? Date.now() : recording.startedAt);
    return {
      id: recording.id,
      desktop: { id: recording.desktopId, name },
      started_at: recording.startedAt,
      ended_at: isLive ? null : recording.endedAt,
      bytes: recording.bytes,
      duration_ms: Math.max(0, end - recording.startedAt),
      gaps: recording.gaps.map((g) => ({ from: g.from, to: g.to, reason: g.reason })),
      live: isLive,
      // Only when it cannot be played here: why (the list offers no play link then).
      ...(unavailable === undefined ? {} : { unavailable }),
    };
  };

  app.get(BASE, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    const grants = await store.desktops.grantsForPerson(person.id);
    const desktops = new Map((await store.desktops.list()).map((d) => [d.id, d]));
    const live = recordings.liveIds();
    const out = [];
    for (const recording of await store.recordings.list()) {
      const desktop = desktops.get(recording.desktopId);
      if (recordingSeen(person, recording, desktop, grants) === undefined) continue;
      const row = live.has(recording.id)
        ? { ...recording, bytes: await fileSize(recordings.dir, recording.id) }
        : recording;
      out.push(view(person, row, desktop?.name ?? '(removed desktop)', live));
    }
    c.header('Cache-Control', 'no-store');
    return c.json({ recordings: out });
  });

  app.get(`${BASE}/:id/stream`, async (c) => {
    const found = await load(c);
    if (!found.ok) return found.response;
    // What is written now (a live recording goes on growing; the player reads this much).
    const file = await recordings.files(found.recording).stream(found.recording.id);
    if (file === undefined) return apiError(c, 404, 'The recording’s file is gone.');
    const { body, size } = file;
    audit(found, 'recording_viewed', 'viewed');
    return c.body(body, 200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(size),
      'Cache-Control': 'no-store',
    });
  });

  app.get(`${BASE}/:id/events`, async (c) => {
    const found = await load(c);
    if (!found.ok) return found.response;
    const events = await eventsOf(found.recording);
    if (events === undefined) return apiError(c, 404, 'The recording’s files are gone.');
    c.header('Cache-Control', 'no-store');
    return c.json({ events });
  });

  app.delete(`${BASE}/:id`, async (c) => {
    const found = await load(c, { toDelete: true });
    if (!found.ok) return found.response;
    if (!found.mayDelete)
      return apiError(c, 403, 'Only the desktop’s owner or an admin can delete its recordings.');
    // Out of reach, only its row can go: leaving its objects unlisted is an admin's call.
    const unreachable = recordings.unreachable(found.recording);
    if (unreachable !== undefined && found.person.role !== 'admin')
      return apiError(
        c,
        403,
        'Only an admin can remove this recording from the list: this bridge cannot reach its files to delete them, so they would stay where they are.',
      );
    if (recordings.liveIds().has(found.recording.id)) return apiError(c, 409, STILL_BEING_MADE);
    // Not ended: being made on another bridge of the site (which shares the store), or left open
    // by a bridge that stopped, which ends it when it starts again. Its owner deleting its row
    // here would erase a recording being made through any other bridge; an admin may (a row whose
    // bridge is gone for good would stay listed otherwise).
    if (found.recording.endedAt === null && found.person.role !== 'admin')
      return apiError(
        c,
        409,
        `${STILL_BEING_MADE} It may be being made on another bridge of the site; one whose bridge stopped is ended when that bridge starts again.`,
      );
    if (!(await recordings.remove(found.recording))) return apiError(c, 409, STILL_BEING_MADE);
    const where = placeText(found.recording) ?? 'on the S3 store it was moved to';
    audit(
      found,
      'recording_deleted',
      unreachable === undefined
        ? 'deleted'
        : `removed from the list; its objects were not deleted (${where}, out of this bridge's reach)`,
    );
    return c.body(null, 204);
  });
}

async function fileSize(dir: string, id: string): Promise<number> {
  return stat(recordingPaths(dir, id).recording).then(
    (s) => s.size,
    () => 0,
  );
}
