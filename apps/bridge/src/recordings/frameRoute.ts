// The picture of a recording at a moment, as a PNG (the timeline's thumbnails): only the keyframe
// at or before the moment and the stretch after it are read (a ranged read on an S3 store), and
// the renders take turns for the whole bridge — a timeline asks for many at once; beyond the
// queue the caller is told to come back.
import type { Context, Hono } from 'hono';
import sharp from 'sharp';
import { apiError } from '../http/apiError.js';
import type { BridgeEnv } from '../http/env.js';
import type { RecordingRecord } from '../store/types.js';
import {
  RECORDINGS_BASE as BASE,
  type RecordingRoutesDeps,
  type RouteAccess,
} from './routeAccess.js';

const MAX_FRAME_WIDTH = 4096;
/** Frames rendered at once for the whole bridge, and how many more may wait their turn. */
const FRAME_RENDERS = 2;
const FRAME_QUEUE = 32;

export function mountFrameRoute(
  app: Hono<BridgeEnv>,
  { recordings }: RecordingRoutesDeps,
  { load }: RouteAccess,
): void {
  const frameTurns = new Turns(FRAME_RENDERS);

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
    // Each render replays up to a keyframe interval and encodes a PNG here: they take turns.
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
