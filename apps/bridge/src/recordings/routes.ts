// Session recordings over HTTP, for a signed-in browser (the /api perimeter: cookie session,
// CSRF on changes, Host/Origin): the list of recordings the person may see (of desktops they may
// view; a removed desktop's, its owner's at the time and admins'), each one's Guacamole stream
// (for Guacamole.SessionRecording), its event track, the picture at a moment (PNG, for timeline
// thumbnails), its export as JSON lines or WebM video (one video export at a time), its deletion
// (the desktop's owner or an admin), and each desktop's recording setting (owner or admin) and
// the person in charge's choice. A recording the person may not see answers 404, like one that
// does not exist. Viewing, exporting and deleting are audited. For admins: the bridge's recording
// settings (default, whether a person may turn it off, retention) and the storage view (what the
// recordings take, per desktop and per person, the oldest, the disk's free space). The files are
// read where the recording's row says they are (the data dir, or the S3 store: storage/).
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { API, type AuditKind } from '@overlay-companion/protocol';
import { ExportError, exportVideo, recordingPaths } from '@overlay-companion/recording';
import type { Context, Hono } from 'hono';
import type { Logger } from 'pino';
import sharp from 'sharp';
import { z } from 'zod';
import type { Access } from '../auth/access.js';
import { accessOf, mayManage } from '../desktops/desktopAccess.js';
import { apiError, parseJsonBody } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { DesktopPlanes } from '../mcp/desktopPlanes.js';
import { requireAdmin } from '../perimeter/signedIn.js';
import type { DesktopRecord, PersonRecord, RecordingRecord } from '../store/types.js';
import type { Recordings } from './recordings.js';
import { RetentionPatch, retentionView } from './retention.js';
import { S3_NOT_CONFIGURED, outOfReach } from './storage/s3NotConfigured.js';

export interface RecordingRoutesDeps {
  access: Access;
  recordings: Recordings;
  planes: DesktopPlanes;
  logger: Logger;
}

const BASE = '/api/recordings';

/** What a person did with a recording, as the audit names it. */
type RecordingAuditKind = Extract<AuditKind, `recording_${string}`>;
const NOT_FOUND = 'No such recording of yours; reload the list.';
const NO_DESKTOP = 'No such desktop of yours; reload the list.';
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_FRAME_WIDTH = 4096;
/** Frames rendered at once for the whole bridge, and how many more may wait their turn. */
const FRAME_RENDERS = 2;
const FRAME_QUEUE = 32;

const ModeRequest = z.strictObject({ mode: z.enum(['off', 'on', 'person']) });
const ChoiceRequest = z.strictObject({ on: z.boolean() });
const SettingsRequest = z.strictObject({
  default_mode: z.enum(['off', 'on', 'person']).optional(),
  person_may_turn_off: z.boolean().optional(),
  /** How long and how much is kept (retention.ts); each field optional, null: no limit. */
  retention: RetentionPatch.optional(),
});

export function mountRecordingRoutes(app: Hono<BridgeEnv>, deps: RecordingRoutesDeps): void {
  const { access, recordings } = deps;
  const store = access.store;
  const { policy } = recordings;

  /** The desktop and what the person may do with it; `access` null: not theirs to see. */
  const desktopFor = async (
    person: PersonRecord,
    desktopId: string,
  ): Promise<{ desktop: DesktopRecord | undefined; access: ReturnType<typeof accessOf> }> => {
    const desktop = await store.desktops.byId(desktopId);
    if (desktop === undefined) return { desktop, access: null };
    return { desktop, access: accessOf(person, desktop, await store.desktops.grants(desktopId)) };
  };

  /** Whether the person sees the recording: they may view its desktop (or owned it, if gone). */
  const visible = async (
    person: PersonRecord,
    recording: RecordingRecord,
  ): Promise<{ desktop: DesktopRecord | undefined; mayDelete: boolean } | undefined> => {
    const { desktop, access: level } = await desktopFor(person, recording.desktopId);
    if (desktop === undefined) {
      const mine = person.role === 'admin' || recording.ownerId === person.id;
      return mine ? { desktop, mayDelete: true } : undefined;
    }
    return level === null ? undefined : { desktop, mayDelete: mayManage(level) };
  };

  /** The signed-in person and the recording they may see, or the 404 to answer with. */
  const load = async (
    c: Context<BridgeEnv>,
  ): Promise<
    | {
        ok: true;
        person: PersonRecord;
        recording: RecordingRecord;
        desktop: DesktopRecord | undefined;
        mayDelete: boolean;
      }
    | { ok: false; response: Response }
  > => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return { ok: false, response: apiError(c, 401, 'Sign in first.') };
    const id = c.req.param('id') ?? '';
    const recording = ID.test(id) ? await store.recordings.byId(id) : undefined;
    const seen = recording === undefined ? undefined : await visible(person, recording);
    if (recording === undefined || seen === undefined)
      return { ok: false, response: apiError(c, 404, NOT_FOUND) };
    return { ok: true, person, recording, ...seen };
  };

  const audit = (
    person: PersonRecord,
    recording: RecordingRecord,
    desktop: DesktopRecord | undefined,
    kind: RecordingAuditKind,
    what: string,
  ): void => {
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
  const auditSetting = (person: PersonRecord, desktop: DesktopRecord, detail: string): void => {
    access.audit.record({
      kind: 'desktop_changed',
      actor: 'person',
      personId: person.id,
      personName: person.displayName,
      summary: `desktop "${desktop.name}" (${desktop.id})`,
      outcome: 'ok',
      detail,
    });
  };

  const view = (recording: RecordingRecord, name: string, live: ReadonlySet<string>) => {
    const isLive = live.has(recording.id);
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
      ...(outOfReach(recording, recordings.location) ? { unavailable: S3_NOT_CONFIGURED } : {}),
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
      const sees =
        desktop === undefined
          ? person.role === 'admin' || recording.ownerId === person.id
          : accessOf(person, desktop, grants) !== null;
      if (!sees) continue;
      const row = live.has(recording.id)
        ? { ...recording, bytes: await fileSize(recordings.dir, recording.id) }
        : recording;
      out.push(view(row, desktop?.name ?? '(removed desktop)', live));
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
    audit(found.person, found.recording, found.desktop, 'recording_viewed', 'viewed');
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

  app.get(`${BASE}/:id/export.jsonl`, async (c) => {
    const found = await load(c);
    if (!found.ok) return found.response;
    const events = await eventsOf(found.recording);
    if (events === undefined) return apiError(c, 404, 'The recording’s files are gone.');
    audit(
      found.person,
      found.recording,
      found.desktop,
      'recording_exported',
      'exported (event track, JSON lines)',
    );
    const text = events.map((e) => JSON.stringify(e)).join('\n');
    return c.body(events.length === 0 ? '' : `${text}\n`, 200, {
      'Content-Type': 'application/jsonl; charset=utf-8',
      'Content-Disposition': `attachment; filename="recording-${found.recording.id}.jsonl"`,
      'Cache-Control': 'no-store',
    });
  });

  const eventsOf = (recording: RecordingRecord) =>
    recordings.files(recording).read(recording.id, { kind: 'events' }, (reader) => reader.events());

  const frameTurns = new Turns(FRAME_RENDERS);

  // A video export renders every frame on this machine: one at a time for the whole bridge.
  let exporting = false;
  app.get(`${BASE}/:id/export.webm`, async (c) => {
    const found = await load(c);
    if (!found.ok) return found.response;
    if (recordings.liveIds().has(found.recording.id))
      return apiError(c, 409, 'This recording is still being made: export it once it has ended.');
    if (exporting)
      return apiError(c, 429, 'Another video export is running; try again when it has finished.', {
        retryAfterMs: 10_000,
      });
    // Taken before the first await, so requests arriving together cannot all pass the check.
    exporting = true;
    let work: string | undefined;
    let out: string;
    try {
      work = await mkdtemp(join(tmpdir(), 'oc-export-'));
      const target = join(work, 'recording.webm');
      const rendered = await recordings
        .files(found.recording)
        .read(found.recording.id, { kind: 'all' }, (reader) =>
          exportVideo(reader, target, { format: 'webm' }),
        );
      if (rendered === undefined) {
        await rm(work, { recursive: true, force: true });
        return apiError(c, 404, 'The recording’s files are gone.');
      }
      out = target;
    } catch (err) {
      if (work !== undefined) await rm(work, { recursive: true, force: true });
      if (err instanceof ExportError) return apiError(c, 503, err.message);
      throw err;
    } finally {
      exporting = false;
    }
    const done = work;
    audit(
      found.person,
      found.recording,
      found.desktop,
      'recording_exported',
      'exported (video, WebM)',
    );
    const size = (await stat(out)).size;
    const file = createReadStream(out);
    file.once('close', () => void rm(done, { recursive: true, force: true }));
    return c.body(Readable.toWeb(file) as ReadableStream, 200, {
      'Content-Type': 'video/webm',
      'Content-Length': String(size),
      'Content-Disposition': `attachment; filename="recording-${found.recording.id}.webm"`,
      'Cache-Control': 'no-store',
    });
  });

  app.get(`${BASE}/:id/frame`, async (c) => {
    const found = await load(c);
    if (!found.ok) return found.response;
    const t = Number(c.req.query('t'));
    if (!Number.isFinite(t))
      return apiError(c, 400, 't must be a time in epoch milliseconds.', { field: 't' });
    const widthText = c.req.query('width');
    const width = widthText === undefined ? undefined : Number(widthText);
    if (width !== undefined && (!Number.isInteger(width) || width < 1 || width > MAX_FRAME_WIDTH))
      return apiError(c, 400, `width must be a whole number from 1 to ${MAX_FRAME_WIDTH}.`, {
        field: 'width',
      });
    // Each render replays up to a keyframe interval and encodes a PNG here: a timeline asks for
    // many at once, so they take turns; beyond the queue the caller is told to come back.
    if (frameTurns.waiting >= FRAME_QUEUE)
      return apiError(c, 429, 'Too many pictures asked for at once; retry in a moment.', {
        retryAfterMs: 1_000,
      });
    const release = await frameTurns.take();
    try {
      return await renderFrame(c, found.recording, t, width);
    } finally {
      release();
    }
  });

  const renderFrame = async (
    c: Context<BridgeEnv>,
    recording: RecordingRecord,
    t: number,
    width: number | undefined,
  ): Promise<Response> => {
    // Only the keyframe at or before `t` and the stretch after it are read (a ranged read of
    // a recording in the S3 store).
    const picture = await recordings
      .files(recording)
      .read(recording.id, { kind: 'picture', t }, (reader) => reader.pictureAt(t));
    if (picture === undefined) return apiError(c, 404, 'The recording’s files are gone.');
    if (picture.width === 0 || picture.height === 0)
      return apiError(c, 404, 'The recording has no picture at that moment.');
    let image = sharp(picture.rgba, {
      raw: { width: picture.width, height: picture.height, channels: 4 },
    });
    if (width !== undefined && width < picture.width) image = image.resize({ width });
    const png = await image.png({ compressionLevel: 3 }).toBuffer();
    return c.body(new Uint8Array(png), 200, {
      'Content-Type': 'image/png',
      // Like every answer about a recording: nothing of it stays in the browser's cache, to be
      // shown there without asking after sign-out or once the grant is withdrawn.
      'Cache-Control': 'no-store',
    });
  };

  app.delete(`${BASE}/:id`, async (c) => {
    const found = await load(c);
    if (!found.ok) return found.response;
    if (!found.mayDelete)
      return apiError(c, 403, 'Only the desktop’s owner or an admin can delete its recordings.');
    if (recordings.liveIds().has(found.recording.id))
      return apiError(
        c,
        409,
        'This recording is still being made: turn the desktop’s recording off (or close it) first.',
      );
    if (!(await recordings.remove(found.recording)))
      return apiError(
        c,
        409,
        'This recording is still being made: turn the desktop’s recording off (or close it) first.',
      );
    audit(found.person, found.recording, found.desktop, 'recording_deleted', 'deleted');
    return c.body(null, 204);
  });

  // ---- storage (admins) -----------------------------------------------------------------

  app.get(`${BASE}/storage`, requireAdmin(), async (c) => {
    const [rows, desktops, people, limits, disk] = await Promise.all([
      store.recordings.list(),
      store.desktops.list(),
      store.people.list(),
      recordings.retentionLimits(),
      recordings.diskSpace(),
    ]);
    const desktopNames = new Map(desktops.map((d) => [d.id, d.name]));
    const personNames = new Map(people.map((p) => [p.id, p.displayName]));
    const live = recordings.liveBytes();
    const perDesktop = new Map<
      string,
      { bytes: number; count: number; oldest: number; live: number }
    >();
    const perPerson = new Map<string, { bytes: number; count: number }>();
    let total = 0;
    let oldest: (typeof rows)[number] | undefined;
    for (const row of rows) {
      const bytes = live.get(row.id) ?? row.storedBytes;
      total += bytes;
      if (oldest === undefined || row.startedAt < oldest.startedAt) oldest = row;
      const d = perDesktop.get(row.desktopId) ?? {
        bytes: 0,
        count: 0,
        oldest: row.startedAt,
        live: 0,
      };
      d.bytes += bytes;
      d.count += 1;
      d.oldest = Math.min(d.oldest, row.startedAt);
      if (live.has(row.id)) d.live += 1;
      perDesktop.set(row.desktopId, d);
      const key = row.ownerId ?? '';
      const p = perPerson.get(key) ?? { bytes: 0, count: 0 };
      p.bytes += bytes;
      p.count += 1;
      perPerson.set(key, p);
    }
    const desktopRef = (id: string) => ({ id, name: desktopNames.get(id) ?? '(removed desktop)' });
    c.header('Cache-Control', 'no-store');
    return c.json({
      location: recordings.location,
      total_bytes: total,
      count: rows.length,
      live_count: live.size,
      limits: retentionView(limits),
      held: recordings.heldReason(),
      disk: disk === undefined ? null : { free_bytes: disk.freeBytes, size_bytes: disk.sizeBytes },
      oldest:
        oldest === undefined
          ? null
          : {
              id: oldest.id,
              desktop: desktopRef(oldest.desktopId),
              started_at: oldest.startedAt,
              bytes: live.get(oldest.id) ?? oldest.storedBytes,
            },
      desktops: [...perDesktop]
        .map(([id, d]) => ({
          desktop: desktopRef(id),
          bytes: d.bytes,
          count: d.count,
          live: d.live,
          oldest_started_at: d.oldest,
        }))
        .sort((a, b) => b.bytes - a.bytes || a.desktop.id.localeCompare(b.desktop.id)),
      people: [...perPerson]
        .map(([id, p]) => ({
          person: id === '' ? null : { id, name: personNames.get(id) ?? '(removed person)' },
          bytes: p.bytes,
          count: p.count,
        }))
        .sort((a, b) => b.bytes - a.bytes),
    });
  });

  // ---- settings -------------------------------------------------------------------------

  app.get(`${API.settings}/recording`, requireAdmin(), async (c) =>
    c.json(await policy.bridgeSettings()),
  );

  app.put(`${API.settings}/recording`, requireAdmin(), async (c) => {
    const admin = c.get('signedIn')?.person;
    const body = await parseJsonBody(c, SettingsRequest);
    if (!body.ok) return body.response;
    await policy.setBridgeSettings(body.value);
    access.audit.record({
      kind: 'settings_changed',
      actor: 'person',
      personId: admin?.id ?? null,
      personName: admin?.displayName ?? null,
      outcome: 'ok',
      detail: `recording ${JSON.stringify(body.value)}`,
    });
    for (const desktop of await store.desktops.list()) void recordings.reconsider(desktop.id);
    // New limits apply at once: what they no longer keep goes now.
    if (body.value.retention !== undefined) await recordings.enforceRetention();
    return c.json(await policy.bridgeSettings());
  });

  const desktopRecording = async (desktopId: string, inCharge: boolean) => {
    const decision = await policy.decide(desktopId);
    return {
      mode: decision.own,
      effective_mode: decision.mode,
      choice: decision.choice,
      person_may_turn_off: decision.personMayTurnOff,
      ...recordings.indicator(desktopId, { inCharge }),
    };
  };

  app.get(`${API.desktops}/:id/recording`, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    const { desktop, access: level } = await desktopFor(person, c.req.param('id'));
    if (desktop === undefined || level === null) return apiError(c, 404, NO_DESKTOP);
    c.header('Cache-Control', 'no-store');
    return c.json(await desktopRecording(desktop.id, inChargeOf(desktop) === person.id));
  });

  app.put(`${API.desktops}/:id/recording`, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    const { desktop, access: level } = await desktopFor(person, c.req.param('id'));
    if (desktop === undefined || level === null) return apiError(c, 404, NO_DESKTOP);
    if (!mayManage(level))
      return apiError(c, 403, 'Only the desktop’s owner or an admin can change its recording.');
    const body = await parseJsonBody(c, ModeRequest);
    if (!body.ok) return body.response;
    const { mode } = body.value;
    if (mode === 'off' && person.role !== 'admin') {
      const settings = await policy.bridgeSettings();
      if (!settings.person_may_turn_off)
        return apiError(
          c,
          403,
          'An admin decided that recording may not be turned off here; ask an admin.',
          { field: 'mode' },
        );
    }
    await store.recordings.setDesktopMode(desktop.id, mode);
    auditSetting(person, desktop, `recording: ${mode}`);
    await recordings.reconsider(desktop.id);
    return c.json(await desktopRecording(desktop.id, inChargeOf(desktop) === person.id));
  });

  app.put(`${API.desktops}/:id/recording/choice`, async (c) => {
    const person = c.get('signedIn')?.person;
    if (person === undefined) return apiError(c, 401, 'Sign in first.');
    const { desktop, access: level } = await desktopFor(person, c.req.param('id'));
    if (desktop === undefined || level === null) return apiError(c, 404, NO_DESKTOP);
    const body = await parseJsonBody(c, ChoiceRequest);
    if (!body.ok) return body.response;
    const plane = await deps.planes.get(desktop.id);
    const inCharge = plane?.inCharge().id ?? inChargeOf(desktop);
    if (inCharge !== person.id)
      return apiError(c, 403, 'Only the person in charge of this desktop chooses its recording.');
    const decision = await policy.decide(desktop.id);
    if (decision.mode !== 'person')
      return apiError(
        c,
        409,
        `This desktop’s recording is set to "${decision.mode}" by its owner or an admin, not left to the person in charge.`,
      );
    if (!body.value.on && !decision.personMayTurnOff)
      return apiError(c, 403, 'An admin decided that recording may not be turned off here.', {
        field: 'on',
      });
    await policy.setChoice(desktop.id, body.value.on);
    auditSetting(
      person,
      desktop,
      `recording chosen ${body.value.on ? 'on' : 'off'} by the person in charge`,
    );
    await recordings.reconsider(desktop.id);
    return c.json(await desktopRecording(desktop.id, true));
  });
}

function inChargeOf(desktop: DesktopRecord): string {
  return desktop.inChargeId ?? desktop.ownerId;
}

async function fileSize(dir: string, id: string): Promise<number> {
  return stat(recordingPaths(dir, id).recording).then(
    (s) => s.size,
    () => 0,
  );
}

/** At most `limit` holders at once; the others wait in order. */
class Turns {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get waiting(): number {
    return this.queue.length;
  }

  async take(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next === undefined) this.active -= 1;
      else next();
    };
  }
}
