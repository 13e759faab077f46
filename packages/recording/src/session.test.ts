// A real session recorded, through each VNC path: our gateway, and Apache guacd 1.6 (when built
// here), each driving a real Xvnc. A Guacamole client (the gateway's test client, standing in for
// the browser) connects through the shared codec, and everything the server sends it is fed to
// the writer as it arrives. The screen is changed with real X clients
// (xsetroot, xterm, xdotool) and captured with `xwd -root` at chosen moments; afterwards the
// reader's picture at each of those moments equals the capture pixel for pixel (the client asks
// for PNG only, so every frame is lossless). A window of a colour nothing else on screen has is
// opened under a privacy mask and closed before the mask goes: no frame of the file shows that
// colour, and no image in the file holds it.
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GuacParser } from '@overlay-companion/guac';
import type { LocalDesktop } from '@overlay-companion/gateway';
import {
  captureRoot,
  compareRgba,
  waitForScreenMatch,
  type GuacTestClient,
} from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DisplayModel } from './displayModel.js';
import type { Rect } from './layers.js';
import { RecordingReader } from './reader.js';
import { findGuacd } from './testing/guacd.js';
import { findGuacenc, guacenc } from './testing/guacenc.js';
import { startStreamedDesktop, type StreamedDesktop } from './testing/streamedDesktop.js';
import { countColourIn } from './testing/streams.js';
import { RecordingWriter } from './writer.js';
import type { RecordingSummary } from './writerOptions.js';

const run = promisify(execFile);
const MAGENTA = [255, 0, 255] as const;
const WIDTH = 800;
const HEIGHT = 500;

const guacdMissing = findGuacd().skip;
if (guacdMissing) console.warn(`[recording] the guacd path is skipped: ${guacdMissing}`);

describe.each([
  { path: 'gateway', skip: undefined },
  { path: 'guacd', skip: guacdMissing },
])('a session recorded through the $path from a real Xvnc', ({ path, skip }) => {
  let streamed: StreamedDesktop | undefined;
  let desktop: LocalDesktop;
  let dir: string;
  let client: GuacTestClient;
  let writer: RecordingWriter;
  let summary: RecordingSummary;
  const captures: { label: string; t: number; image: Awaited<ReturnType<typeof captureRoot>> }[] =
    [];
  const mask: Rect = { x: 260, y: 90, width: 330, height: 230 };
  let maskFrom = 0;
  let maskTo = 0;
  const children: ChildProcess[] = [];
  const x = (command: string, args: string[]): Promise<void> =>
    (streamed as StreamedDesktop).x(command, args);
  const live = (): DisplayModel => (streamed as StreamedDesktop).live;

  /** Waits until the client shows what X shows, then captures that moment. */
  const capture = async (label: string): Promise<void> => {
    const diff = await waitForScreenMatch(desktop.env, () => live().screen, 20_000);
    expect(diff, `live client vs X at "${label}"`).toEqual({ mismatches: 0 });
    const image = await captureRoot(desktop.env);
    captures.push({ label, t: Date.now(), image });
  };

  beforeAll(async () => {
    if (skip) return;
    dir = await mkdtemp(join(tmpdir(), 'oc-rec-session-'));
    writer = await RecordingWriter.create({
      dir,
      keyframeIntervalMs: 1000,
      maxKeyframeIntervalMs: 1000,
    });
    // PNG only: every frame lossless, so pictures compare pixel for pixel. (guacd may still send
    // JPEG under load; it refreshes such areas losslessly once the screen is quiet, which the
    // capture waits for.)
    streamed = await startStreamedDesktop(
      path as 'gateway' | 'guacd',
      { width: WIDTH, height: HEIGHT },
      (i) => writer.feed(i),
    );
    ({ desktop, client } = streamed);
    expect(client.errors).toEqual([]);
    client.send('mouse', 0, 0, 0);

    await x('xsetroot', ['-solid', '#204080']);
    await capture('blue root');
    const term = desktop.spawnClient('xterm', ['-geometry', '40x8+40+40', '-bg', '#f0f0e0']);
    children.push(term);
    await x('timeout', ['30', 'xdotool', 'search', '--sync', '--onlyvisible', '--class', 'xterm']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await capture('xterm');
    await x('xdotool', ['type', '--delay', '20', 'echo recorded']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await capture('typed');
    await x('xsetroot', ['-solid', '#306030']);
    await capture('green root');

    // The mask comes first, then the secret window under it; the window goes before the mask.
    await new Promise((resolve) => setTimeout(resolve, 20));
    maskFrom = Date.now();
    writer.setMasks([mask], maskFrom);
    const secret = desktop.spawnClient('xterm', [
      '-geometry',
      '20x5+300+130',
      '-bg',
      '#ff00ff',
      '-fg',
      '#ff00ff',
      '-cr',
      '#ff00ff',
      '-class',
      'SecretWindow',
    ]);
    children.push(secret);
    await x('timeout', [
      '30',
      'xdotool',
      'search',
      '--sync',
      '--onlyvisible',
      '--class',
      'SecretWindow',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await capture('secret under the mask');
    secret.kill();
    await x('sh', [
      '-c',
      'for i in $(seq 50); do xdotool search --onlyvisible --class SecretWindow >/dev/null || exit 0; sleep 0.1; done',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await capture('secret gone');
    await new Promise((resolve) => setTimeout(resolve, 20));
    maskTo = Date.now();
    writer.setMasks([], maskTo);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await x('xsetroot', ['-solid', '#603030']);
    await capture('after the mask');
    client.close();
    summary = await writer.close();
    const opcodes = new Map<string, number>();
    for (const { opcode } of client.received) opcodes.set(opcode, (opcodes.get(opcode) ?? 0) + 1);
    console.log(
      `[recording] ${path}: ${summary.bytes} bytes in ${summary.end - summary.start} ms, ${summary.frames} frames, ${summary.keyframes} keyframes; the server sent ${JSON.stringify(Object.fromEntries(opcodes))}`,
    );
  }, 180_000);

  afterAll(async () => {
    for (const child of children) child.kill();
    await streamed?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('gives, at each captured moment, the picture xwd -root captured then, pixel for pixel', async (ctx) => {
    if (skip) return ctx.skip(skip);
    const reader = await RecordingReader.open(dir, summary.id);
    expect(summary.gaps).toEqual([]);
    expect(reader.keyframes.length).toBeGreaterThan(1);
    for (const { label, t, image } of captures) {
      const picture = await reader.pictureAt(t);
      if (t >= maskFrom && t < maskTo) {
        // Under the mask: black there, the capture elsewhere.
        expect(countColourIn(picture, [mask], [0, 0, 0]), label).toBe(mask.width * mask.height);
        const outside = { ...image, rgba: Buffer.from(image.rgba) };
        paintBlack(outside.rgba, WIDTH, mask);
        expect(compareRgba(outside, picture), label).toEqual({ mismatches: 0 });
      } else {
        expect(compareRgba(image, picture), label).toEqual({ mismatches: 0 });
      }
    }
  });

  it('leaves no pixel of the window under the mask in the file', async (ctx) => {
    if (skip) return ctx.skip(skip);
    // The test means something only if X really showed the secret, and only inside the mask.
    const secret = captures.find((c) => c.label === 'secret under the mask')?.image;
    const everywhere = [{ x: 0, y: 0, width: WIDTH, height: HEIGHT }];
    expect(secret && countColourIn(secret, [mask], MAGENTA)).toBeGreaterThan(1000);
    expect(secret && countColourIn(secret, everywhere, MAGENTA)).toBe(
      countColourIn(secret!, [mask], MAGENTA),
    );

    const reader = await RecordingReader.open(dir, summary.id);
    let frames = 0;
    for await (const { t, model } of reader.frames()) {
      frames++;
      for (const [index, surface] of model.surfaces)
        expect(countColourIn(surface, everywhere, MAGENTA), `surface ${index} at ${t}`).toBe(0);
    }
    expect(frames).toBeGreaterThan(5);
    // And no image anywhere in the file decodes to it (the raw bytes, not only the replay).
    const parser = new GuacParser();
    const text = await readFile(summary.paths.recording);
    // Streams may interleave (guacd encodes on several threads): follow each by its index.
    const images: string[][] = [];
    const open = new Map<string, string[]>();
    for (const { opcode, args } of parser.push(text)) {
      const stream = args[0] ?? '';
      if (opcode === 'img') {
        const chunks: string[] = [];
        images.push(chunks);
        open.set(stream, chunks);
      } else if (opcode === 'blob') open.get(stream)?.push(args[1] ?? '');
      else if (opcode === 'end') open.delete(stream);
    }
    const sharp = (await import('sharp')).default;
    for (const chunks of images) {
      const { data, info } = await sharp(Buffer.from(chunks.join(''), 'base64'))
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const all = [{ x: 0, y: 0, width: info.width, height: info.height }];
      expect(
        countColourIn({ width: info.width, height: info.height, rgba: data }, all, MAGENTA),
      ).toBe(0);
    }
  });

  it("converts with Apache's guacenc to a video ending on the session's last picture", async (ctx) => {
    if (skip) return ctx.skip(skip);
    const found = findGuacenc();
    if (found.path === undefined) {
      console.warn(`[recording] guacenc test skipped: ${found.skip}`);
      return ctx.skip(found.skip);
    }
    const { video, stderr } = await guacenc(found.path, summary.paths.recording, WIDTH, HEIGHT);
    expect(stderr).not.toMatch(/Decreasing sync|not supported|failed/i);
    // The video's last frame is one of the session's pictures (guacenc may leave out the very
    // last frame): lossy (H.264 at guacenc's bitrate), so compared on average, not pixel for
    // pixel, with the nearest capture.
    const { stdout } = await run(
      'ffmpeg',
      [
        '-v',
        'error',
        '-sseof',
        '-0.2',
        '-i',
        video,
        '-frames:v',
        '1',
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgb24',
        '-',
      ],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
    );
    expect(stdout.length).toBe(WIDTH * HEIGHT * 3);
    const meanDifference = ({ image }: (typeof captures)[number]): number => {
      let total = 0;
      for (let p = 0; p < WIDTH * HEIGHT; p++)
        for (let c = 0; c < 3; c++) total += Math.abs(stdout[p * 3 + c]! - image.rgba[p * 4 + c]!);
      return total / (WIDTH * HEIGHT * 3);
    };
    const nearest = Math.min(...captures.slice(-2).map(meanDifference));
    expect(nearest).toBeLessThan(6);
  });
});

function paintBlack(rgba: Buffer, width: number, r: Rect): void {
  for (let y = r.y; y < r.y + r.height; y++)
    rgba.fill(Buffer.from([0, 0, 0, 255]), (y * width + r.x) * 4, (y * width + r.x + r.width) * 4);
}
