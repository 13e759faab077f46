// Exports a recording: as a video file rendered offscreen with Debian's ffmpeg (raw RGBA frames
// piped in, H.264 MP4 or VP8 WebM out), with the AI's overlays (a bordered rectangle and its
// label, from drawn until removed) and the AI's pointer (a marker at each action's point for a
// second) composited from the event track; and as a JSON-lines event file. The video is as large
// as the desktop ever was in the recording, at the desktop's own pixels. The replay runs
// once, front to back, through the reader's steps: each output frame at time T shows the last
// recording frame that ended at or before T.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import sharp from 'sharp';
import type { RecordingEvent } from './events.js';
import { drawImage, fillRects, CompositeMask, type Rect, type Surface } from './layers.js';
import type { RecordingReader } from './reader.js';

export interface VideoExportOptions {
  /** Frames per second of the video (default 10). */
  fps?: number;
  /** `mp4` (H.264, default: the fastest to encode here) or `webm` (VP8). */
  format?: 'mp4' | 'webm';
  /** Draw overlays and the AI pointer from the event track (default true). */
  annotate?: boolean;
  /** The ffmpeg binary (default `ffmpeg` on PATH). */
  ffmpeg?: string;
  /**
   * Stops the export before its next frame (ffmpeg is killed, an ExportError with the signal's
   * reason thrown): the person who asked went away, or it ran too long.
   */
  signal?: AbortSignal;
  /**
   * Called with ffmpeg's pid as soon as it is spawned, and awaited before it is sent its first
   * frame: what it sets on the process (the bridge lowers its CPU and I/O priority) holds for
   * every thread ffmpeg starts, since ffmpeg starts its encoder threads only once it has input.
   */
  spawned?: (pid: number) => void | Promise<void>;
}

export interface VideoExportResult {
  frames: number;
  width: number;
  height: number;
  /** Length of the video, in ms. */
  durationMs: number;
  /** Wall time the export took, in ms. */
  elapsedMs: number;
}

export class ExportError extends Error {
  override name = 'ExportError';
}

/** How long the AI pointer stays marked after an action. */
const POINTER_MS = 1000;
const OVERLAY_COLOUR = [255, 136, 0, 255] as const;
const BORDER = 3;

interface Badge {
  width: number;
  height: number;
  rgba: Buffer;
}

interface Annotation {
  from: number;
  to: number;
  draw(frame: Surface): void;
}

/** Renders `reader`'s recording to `outPath` as a video. */
export async function exportVideo(
  reader: RecordingReader,
  outPath: string,
  options: VideoExportOptions = {},
): Promise<VideoExportResult> {
  const started = performance.now();
  const fps = options.fps ?? 10;
  const format = options.format ?? 'mp4';
  const annotations = options.annotate === false ? [] : await annotationsOf(await reader.events());

  let ffmpeg: ReturnType<typeof startFfmpeg> | undefined;
  let canvas: Surface | undefined;
  let frames = 0;
  const step = 1000 / fps;
  let next = reader.start;

  const emit = async (screen: Surface, until: number): Promise<void> => {
    while (next < until && next <= reader.end) {
      if (options.signal?.aborted === true)
        throw new ExportError(
          typeof options.signal.reason === 'string'
            ? options.signal.reason
            : 'The export was stopped.',
        );
      if (screen.width === 0 || screen.height === 0) {
        next += step;
        continue;
      }
      if (canvas === undefined) {
        // The largest the desktop ever was: a desktop resized during the recording (a window
        // sizing it to itself as it opens) is shown whole, at its own pixels, never cut.
        const largest = (await largestScreen(reader.paths.recording)) ?? screen;
        canvas = {
          width: Math.max(screen.width, largest.width),
          height: Math.max(screen.height, largest.height),
          rgba: Buffer.alloc(0),
        };
        ffmpeg = startFfmpeg(options.ffmpeg ?? 'ffmpeg', canvas, fps, format, outPath);
        if (ffmpeg.child.pid !== undefined) await options.spawned?.(ffmpeg.child.pid);
      }
      const frame = fit(screen, canvas);
      for (const a of annotations) if (a.from <= next && next < a.to) a.draw(frame);
      if (!ffmpeg!.child.stdin.write(frame.rgba)) await once(ffmpeg!.child.stdin, 'drain');
      frames++;
      next += step;
    }
  };

  let last: Surface | undefined;
  try {
    for await (const { t, applied, model } of reader.steps()) {
      if (!applied) await emit(model.screen, t);
      last = model.screen;
    }
    // The last frame stands until the end of the recording.
    if (last) await emit(last, reader.end + step / 2);
  } catch (error) {
    ffmpeg?.child.kill();
    // Killed, ffmpeg exits non-zero (an MP4's trailer cannot be written): `error` says why the
    // export stopped, and that rejection, awaited by no one, would end the whole process.
    ffmpeg?.done.catch(() => undefined);
    throw error;
  }
  if (ffmpeg === undefined || canvas === undefined)
    throw new ExportError('The recording has no picture to export (no frame drew the desktop).');
  ffmpeg.child.stdin.end();
  await ffmpeg.done;
  return {
    frames,
    width: canvas.width,
    height: canvas.height,
    durationMs: Math.round((frames * 1000) / fps),
    elapsedMs: Math.round(performance.now() - started),
  };
}

/** Writes the event track as JSON lines (the recording's own schema, one event a line). */
export async function exportEvents(reader: RecordingReader, outPath: string): Promise<number> {
  const events = await reader.events();
  await writeFile(outPath, events.map((e) => JSON.stringify(e) + '\n').join(''), { mode: 0o600 });
  return events.length;
}

function startFfmpeg(
  binary: string,
  size: { width: number; height: number },
  fps: number,
  format: 'mp4' | 'webm',
  outPath: string,
): { child: ChildProcessByStdio<Writable, null, Readable>; done: Promise<void> } {
  const codec =
    format === 'mp4'
      ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '23', '-movflags', '+faststart']
      : ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '2M'];
  const child = spawn(
    binary,
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgba',
      '-s',
      `${size.width}x${size.height}`,
      '-framerate',
      String(fps),
      '-i',
      'pipe:0',
      ...codec,
      '-pix_fmt',
      'yuv420p',
      '-f',
      format,
      outPath,
    ],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.on('error', () => undefined); // ffmpeg's exit says why
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', (error) =>
      reject(
        new ExportError(
          `Could not run ${binary} (${error.message}); install Debian's ffmpeg (apt-get install ffmpeg).`,
        ),
      ),
    );
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new ExportError(`ffmpeg failed (exit ${String(code)}): ${stderr.trim()}`)),
    );
  });
  return { child, done };
}

/** A copy of `screen` the size of `canvas` (cropped or padded with black). */
/** The largest width and height layer 0 is given in the recording's file (undefined: none). */
async function largestScreen(path: string): Promise<{ width: number; height: number } | undefined> {
  const SIZE = /4\.size,1\.0,(\d+)\.(\d+),(\d+)\.(\d+);/g;
  let largest: { width: number; height: number } | undefined;
  let carry = '';
  for await (const chunk of createReadStream(path, {
    highWaterMark: 1 << 20,
  }) as AsyncIterable<Buffer>) {
    const text = carry + chunk.toString('latin1');
    for (const m of text.matchAll(SIZE)) {
      const width = Number(m[2]);
      const height = Number(m[4]);
      largest = {
        width: Math.max(width, largest?.width ?? 0),
        height: Math.max(height, largest?.height ?? 0),
      };
    }
    // An instruction cut by the chunk's end is read with the next one.
    carry = text.slice(-48);
  }
  return largest;
}

/** The screen drawn at the canvas's top left (a smaller desktop padded black). */
function fit(screen: Surface, canvas: { width: number; height: number }): Surface {
  if (screen.width === canvas.width && screen.height === canvas.height)
    return { ...canvas, rgba: Buffer.from(screen.rgba) };
  const out = { ...canvas, rgba: Buffer.alloc(canvas.width * canvas.height * 4) };
  drawImage(out, screen.rgba, screen.width, screen.height, 0, 0, CompositeMask.SRC);
  return out;
}

/** Overlays and pointer marks from the event track, each with its time span and drawing. */
async function annotationsOf(events: readonly RecordingEvent[]): Promise<Annotation[]> {
  const out: Annotation[] = [];
  const open = new Map<string, Extract<RecordingEvent, { kind: 'overlay.drawn' }>>();
  const end = Number.POSITIVE_INFINITY;
  const overlay = async (
    drawn: Extract<RecordingEvent, { kind: 'overlay.drawn' }>,
    to: number,
  ): Promise<void> => {
    const label = drawn.label ? await badge(drawn.label) : undefined;
    out.push({ from: drawn.t, to, draw: (frame) => drawOverlay(frame, drawn.rect, label) });
  };
  const pointer = await marker();
  for (const e of events) {
    if (e.kind === 'overlay.drawn') open.set(e.id, e);
    else if (e.kind === 'overlay.removed') {
      const drawn = open.get(e.id);
      open.delete(e.id);
      if (drawn) await overlay(drawn, e.t);
    } else if (e.kind === 'ai.action' && e.point) {
      const { x, y } = e.point;
      out.push({
        from: e.t,
        to: e.t + POINTER_MS,
        draw: (frame) =>
          drawImage(
            frame,
            pointer.rgba,
            pointer.width,
            pointer.height,
            x - (pointer.width >> 1),
            y - (pointer.height >> 1),
            CompositeMask.OVER,
          ),
      });
    }
  }
  for (const drawn of open.values()) await overlay(drawn, end);
  return out;
}

function drawOverlay(frame: Surface, r: Rect, label: Badge | undefined): void {
  const edges: Rect[] = [
    { x: r.x, y: r.y, width: r.width, height: BORDER },
    { x: r.x, y: r.y + r.height - BORDER, width: r.width, height: BORDER },
    { x: r.x, y: r.y, width: BORDER, height: r.height },
    { x: r.x + r.width - BORDER, y: r.y, width: BORDER, height: r.height },
  ];
  fillRects(frame, edges, OVERLAY_COLOUR, CompositeMask.OVER);
  if (label) {
    const y = r.y - label.height >= 0 ? r.y - label.height : r.y + BORDER;
    drawImage(frame, label.rgba, label.width, label.height, r.x, y, CompositeMask.OVER);
  }
}

const escapeXml = (text: string): string =>
  text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A label on an orange tab, rendered once (SVG through sharp). */
async function badge(text: string): Promise<Badge> {
  const shown = text.length > 60 ? `${text.slice(0, 59)}…` : text;
  const width = Math.max(24, Math.round(shown.length * 8.2) + 12);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20"><rect width="100%" height="100%" fill="#ff8800"/><text x="6" y="15" font-family="DejaVu Sans, sans-serif" font-size="13" fill="#000">${escapeXml(shown)}</text></svg>`;
  return raw(svg);
}

/** The AI pointer's mark: a ring with a cross, centred on the point. */
async function marker(): Promise<Badge> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="41" height="41"><circle cx="20.5" cy="20.5" r="16" fill="none" stroke="#ff2d55" stroke-width="4"/><circle cx="20.5" cy="20.5" r="16" fill="none" stroke="#fff" stroke-width="1.5"/><path d="M20.5 6v29M6 20.5h29" stroke="#ff2d55" stroke-width="2"/></svg>`;
  return raw(svg);
}

async function raw(svg: string): Promise<Badge> {
  const { data, info } = await sharp(Buffer.from(svg))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgba: data };
}
