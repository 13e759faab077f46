// A recording's exports over HTTP, all audited: its event track as JSON lines, and a video
// rendered on this machine (the package's exportVideo: overlays and the AI's pointer composited),
// as H.264 MP4 (`export.mp4`, what the recordings page offers: about four times faster to encode
// here than VP8) or WebM (`export.webm`)
// — a few at a time (exportSlots.ts: one per person, a small number for the whole machine), with
// ffmpeg at a low CPU and I/O priority (exportPriority.ts), and only once the recording has
// ended. A video export stops when its request goes away (nobody would get the file, and it holds
// a slot) and after EXPORT_MAX_MS (a day-long recording would hold it for hours).
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ExportError, exportVideo, type VideoExportOptions } from '@overlay-companion/recording';
import type { Context, Hono } from 'hono';
import { apiError } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import { lowerExportPriority } from './exportPriority.js';
import { EXPORT_RETRY_MS, ExportSlots, SLOTS_FOLDER_FOR_MEMBERS } from './exportSlots.js';
import {
  RECORDINGS_BASE as BASE,
  type RecordingRoutesDeps,
  type RouteAccess,
} from './routeAccess.js';

/** The video files a recording exports as: the name the audit gives each, and its media type. */
type VideoFormat = NonNullable<VideoExportOptions['format']>;
const VIDEO_FORMATS: Record<VideoFormat, { name: string; mime: string }> = {
  mp4: { name: 'MP4', mime: 'video/mp4' },
  webm: { name: 'WebM', mime: 'video/webm' },
};

/** The longest one video export runs before it is stopped (it holds a slot meanwhile). */
export const EXPORT_MAX_MS = 30 * 60_000;

export function mountExportRoutes(
  app: Hono<BridgeEnv>,
  { recordings, logger }: RecordingRoutesDeps,
  { load, audit, eventsOf }: RouteAccess,
): void {
  app.get(`${BASE}/:id/export.jsonl`, async (c) => {
    const found = await load(c);
    if (!found.ok) return found.response;
    const events = await eventsOf(found.recording);
    if (events === undefined) return apiError(c, 404, 'The recording’s files are gone.');
    audit(found, 'recording_exported', 'exported (event track, JSON lines)');
    const text = events.map((e) => JSON.stringify(e)).join('\n');
    return c.body(events.length === 0 ? '' : `${text}\n`, 200, {
      'Content-Type': 'application/jsonl; charset=utf-8',
      'Content-Disposition': `attachment; filename="recording-${found.recording.id}.jsonl"`,
      'Cache-Control': 'no-store',
    });
  });

  // A video export renders every frame on this machine: a few at a time (exportSlots.ts).
  const slots = new ExportSlots(recordings.exportSlotsDir);
  const spawned = (pid: number): Promise<void> => lowerExportPriority(pid, logger);
  const exportAs = (format: VideoFormat) => async (c: Context<BridgeEnv>) => {
    const { name, mime } = VIDEO_FORMATS[format];
    const found = await load(c);
    if (!found.ok) return found.response;
    if (recordings.liveIds().has(found.recording.id))
      return apiError(c, 409, 'This recording is still being made: export it once it has ended.');
    // Taken before the next await, so requests arriving together cannot all pass the check.
    const slot = slots.take(found.person.id);
    if (!slot.ok) {
      if (slot.status === 503) {
        logger.warn({ reason: slot.message }, 'a video export was refused: no export slots folder');
        return apiError(
          c,
          503,
          found.person.role === 'admin' ? slot.message : SLOTS_FOLDER_FOR_MEMBERS,
        );
      }
      return apiError(c, 429, slot.message, { retryAfterMs: EXPORT_RETRY_MS });
    }
    let work: string | undefined;
    let out: string;
    const stop = new AbortController();
    const gone = (): void => stop.abort('The video export was stopped: its request went away.');
    const timer = setTimeout(
      () =>
        stop.abort(
          `The video export ran longer than ${EXPORT_MAX_MS / 60_000} minutes and was stopped (the recording is long): play it on the recordings page, or export its event track.`,
        ),
      EXPORT_MAX_MS,
    );
    c.req.raw.signal.addEventListener('abort', gone, { once: true });
    try {
      work = await mkdtemp(join(tmpdir(), 'oc-export-'));
      const target = join(work, `recording.${format}`);
      const rendered = await recordings
        .files(found.recording)
        .read(found.recording.id, { kind: 'all' }, (reader) =>
          exportVideo(reader, target, { format, signal: stop.signal, spawned }),
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
      clearTimeout(timer);
      c.req.raw.signal.removeEventListener('abort', gone);
      slot.release();
    }
    const done = work;
    audit(found, 'recording_exported', `exported (video, ${name})`);
    const size = (await stat(out)).size;
    const file = createReadStream(out);
    file.once('close', () => void rm(done, { recursive: true, force: true }));
    return c.body(Readable.toWeb(file) as ReadableStream, 200, {
      'Content-Type': mime,
      'Content-Length': String(size),
      'Content-Disposition': `attachment; filename="recording-${found.recording.id}.${format}"`,
      'Cache-Control': 'no-store',
    });
  };
  for (const format of Object.keys(VIDEO_FORMATS) as VideoFormat[])
    app.get(`${BASE}/:id/export.${format}`, exportAs(format));
}
