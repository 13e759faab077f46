// Thumbnail attention (packages/guac's attention.ts) against a real Xvnc whose xterm prints
// constantly: two browsers glancing at thumbnails get the screen scaled down to fit THUMBNAIL_BOX
// (first all of it, then what changed), one frame every MOVING_THUMBNAIL_INTERVAL_MS while the
// xterm scrolls, each image in one blob, close to `xwd -root` scaled down the same way; a full
// viewer on the same connection is unaffected; a thumbnail's pointer input reaches nothing; and a
// thumbnail brought back to full attention gets the desktop's own size and, once the xterm
// stops, exact pixels. A browser that takes only PNG gets a thumbnail of a scrolled xterm equal
// to `xwd -root` scaled down, pixel for pixel, once the scrolling stops, and frames again every
// GLANCE_FRAME_INTERVAL_MS when what changes does not move.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GLANCE_FRAME_INTERVAL_MS, thumbnailSize } from '@overlay-companion/guac';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { scaleDown } from '../encode/scaleDown.js';
import { MOVING_THUMBNAIL_INTERVAL_MS } from '../session/thumbnailFrames.js';
import { captureRoot, waitForScreenMatch } from '../testing/desktopCapture.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { waitForVisibleWindow } from '../testing/xWindows.js';
import { startGateway, type Gateway } from './gateway.js';

const run = promisify(execFile);
const WIDTH = 1280;
const HEIGHT = 800;

/** Mean absolute difference per channel between an RGB thumbnail and an RGBA picture. */
function meanDifference(rgb: Buffer, rgba: Buffer): number {
  let sum = 0;
  for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) {
    for (let c = 0; c < 3; c++) sum += Math.abs(rgb[i + c]! - rgba[j + c]!);
  }
  return sum / rgb.length;
}

/**
 * The `blob` instructions of each image `client` received since its display became `size` (a
 * thumbnail), in order, and the longest blob's length.
 */
function blobsPerImage(
  client: GuacTestClient,
  size: { width: number; height: number },
): { counts: number[]; longest: number } {
  const start = client.received.findIndex(
    (i) =>
      i.opcode === 'size' &&
      i.args[0] === '0' &&
      i.args[1] === String(size.width) &&
      i.args[2] === String(size.height),
  );
  expect(start).toBeGreaterThanOrEqual(0);
  const open = new Map<string, number>();
  const counts: number[] = [];
  let longest = 0;
  for (const { opcode, args } of client.received.slice(start + 1)) {
    const stream = args[0] ?? '';
    if (opcode === 'img') open.set(stream, 0);
    if (opcode === 'blob' && open.has(stream)) {
      open.set(stream, open.get(stream)! + 1);
      longest = Math.max(longest, args[1]?.length ?? 0);
    }
    if (opcode === 'end' && open.has(stream)) {
      counts.push(open.get(stream)!);
      open.delete(stream);
    }
  }
  return { counts, longest };
}

describe('gateway thumbnails', () => {
  let desktop: LocalDesktop;
  let gateway: Gateway;
  const clients: GuacTestClient[] = [];
  let flagDir: string;
  /** The xterm prints while this file exists. */
  let printing: string;

  beforeAll(async () => {
    flagDir = await mkdtemp(join(tmpdir(), 'oc-thumbnail-'));
    printing = join(flagDir, 'printing');
    await writeFile(printing, '');
    desktop = await startLocalDesktop({
      width: WIDTH,
      height: HEIGHT,
      windowManager: false,
      xterm: {
        command: ['sh', '-c', `while [ -e '${printing}' ]; do date +%s%N; sleep 0.03; done`],
        geometry: '40x10+10+10',
      },
    });
    // A colour far from black, so a blank or wrong thumbnail cannot pass.
    await run('xsetroot', ['-solid', '#c04020'], { env: desktop.env });
    gateway = await startGateway({
      port: 0,
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
      keepAliveMs: 300,
    });
    await waitForVisibleWindow(desktop.env, 'xterm');
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await gateway?.close();
    await desktop?.stop();
    await rm(flagDir, { recursive: true, force: true });
  });

  it('sends glancing tiles the screen scaled down, then what changed, once a second, and the full picture back', async () => {
    const params = { hostname: desktop.rfbPath };
    const full = await GuacTestClient.connect(gateway, { select: 'vnc', params });
    clients.push(full);
    const tiles = [
      await GuacTestClient.connect(gateway, { select: full.connectionId }),
      await GuacTestClient.connect(gateway, { select: full.connectionId }),
    ];
    clients.push(...tiles);
    const marks: number[] = [];
    for (const tile of tiles) {
      await tile.waitForFrames(1);
      marks.push(tile.images.length);
      tile.send('x-oc-attention', 'thumbnail');
    }
    const size = thumbnailSize(WIDTH, HEIGHT);
    expect(size).toEqual({ width: 480, height: 300 });
    for (const tile of tiles) {
      await tile.waitFor(
        () => tile.screen.width === size.width && tile.screen.height === size.height,
        'the thumbnail size',
      );
    }

    // Paced like a glance, and more slowly while content moves: the xterm scrolls every 30 ms.
    // (Counted once two frames have shown the move: the first after the whole screen comes at a
    // glance's pace.)
    for (const tile of tiles) await tile.waitForFrames(tile.frames + 2);
    const before = tiles.map((t) => t.frames);
    const fullBefore = full.frames;
    const watchMs = 3 * MOVING_THUMBNAIL_INTERVAL_MS + 200;
    await new Promise((resolve) => setTimeout(resolve, watchMs));
    const counts = tiles.map((t, i) => t.frames - before[i]!);
    console.log(
      `in ${watchMs} ms: full ${full.frames - fullBefore} frames, thumbnails ${counts.join(', ')}`,
    );
    expect(full.frames - fullBefore).toBeGreaterThan(10);
    for (const count of counts) {
      // At one a second this window would hold six or seven frames.
      expect(count).toBeGreaterThanOrEqual(2);
      expect(count).toBeLessThanOrEqual(5);
    }
    // The first thumbnail frame is the whole screen; later ones only what changed (the xterm in
    // the top-left corner), scaled into place — one JPEG each, inside the thumbnail.
    for (const [i, tile] of tiles.entries()) {
      const whole = tile.images
        .slice(marks[i])
        .find((image) => image.width === size.width && image.height === size.height);
      expect(whole).toMatchObject({ x: 0, y: 0, mimetype: 'image/jpeg' });
      const late = tile.images.slice(tile.images.indexOf(whole!) + 1);
      expect(late.length).toBeGreaterThan(0);
      for (const image of late) {
        expect(image.mimetype).toBe('image/jpeg');
        expect(image.x + image.width).toBeLessThanOrEqual(size.width / 2);
        expect(image.y + image.height).toBeLessThanOrEqual(size.height / 2);
      }
    }
    // Both tiles show what X shows, scaled down (JPEG at low quality: close, not exact).
    const root = await captureRoot(desktop.env);
    const expected = scaleDown(root.rgba, root, size);
    for (const tile of tiles) {
      const difference = meanDifference(expected, tile.screen.rgba);
      console.log(
        `thumbnail against xwd scaled: mean difference ${difference.toFixed(2)} per channel`,
      );
      expect(difference).toBeLessThan(6);
    }

    // A thumbnail's pointer input is in thumbnail pixels: it never reaches the desktop. (The
    // delivery answer comes once everything the browser sent before it reached X.)
    const delivered = async (client: GuacTestClient, id: string) => {
      client.send('x-oc-delivery', id);
      await client.waitFor(
        () => client.received.some((i) => i.opcode === 'x-oc-delivery' && i.args[0] === id),
        `delivery ${id}`,
      );
    };
    const pointer = async () => {
      const { stdout } = await run('xdotool', ['getmouselocation', '--shell'], {
        env: desktop.env,
      });
      return {
        x: Number(/^X=(\d+)$/m.exec(stdout)?.[1]),
        y: Number(/^Y=(\d+)$/m.exec(stdout)?.[1]),
      };
    };
    full.send('mouse', 700, 500, 0);
    await delivered(full, '1');
    expect(await pointer()).toEqual({ x: 700, y: 500 });
    tiles[1]!.send('mouse', 50, 40, 0);
    await delivered(tiles[1]!, '2');
    expect(await pointer()).toEqual({ x: 700, y: 500 });

    // Back to full attention: the desktop's own size, exact pixels.
    tiles[0]!.send('x-oc-attention', 'full');
    await tiles[0]!.waitFor(
      () => tiles[0]!.screen.width === WIDTH && tiles[0]!.screen.height === HEIGHT,
      'the full size again',
    );
    await rm(printing);
    const diff = await waitForScreenMatch(desktop.env, () => tiles[0]!.screen);
    expect(diff).toEqual({ mismatches: 0 });
  });
  it('sends a scrolled xterm to a PNG-only thumbnail slowly, each image in one blob, and equal to xwd scaled once it stops', async () => {
    // Dense text scrolling in a big xterm (full from the start), a line every 100 ms: its thumbnail images are larger
    // than one of guacd's blobs (6048 bytes), so "one blob" says something. (Much faster and
    // the VNC server, asked for an update a second, sends the xterm redrawn rather than moved.)
    // The xterm stays open when it stops.
    await rm(printing, { force: true }); // the first test's xterm: nothing else changes
    // Xvnc draws the pointer into the pixels it sends a client that did not move it there itself
    // (a thumbnail's pointer input is dropped), and xwd never shows it: the pointer goes where
    // such a client's own pointer is taken to be, the top-left corner.
    await run('xdotool', ['mousemove', '0', '0'], { env: desktop.env });
    const scrolling = join(flagDir, 'scrolling');
    await writeFile(scrolling, '');
    const xterm: ChildProcess = spawn(
      'xterm',
      [
        '-geometry',
        '100x30+200+150',
        '-e',
        'sh',
        '-c',
        `seq 1 40; while [ -e '${scrolling}' ]; do head -c 60 /dev/urandom | base64; sleep 0.1; done; exec sleep 600`,
      ],
      { env: desktop.env, stdio: 'ignore' },
    );
    try {
      await waitForVisibleWindow(desktop.env, 'xterm');
      const tile = await GuacTestClient.connect(gateway, {
        select: 'vnc',
        params: { hostname: desktop.rfbPath },
        imageTypes: ['image/png'],
      });
      clients.push(tile);
      await tile.waitForFrames(1);
      tile.send('x-oc-attention', 'thumbnail');
      const size = thumbnailSize(WIDTH, HEIGHT);
      await tile.waitFor(
        () => tile.screen.width === size.width && tile.screen.height === size.height,
        'the thumbnail size',
      );

      // While the xterm scrolls, a frame every MOVING_THUMBNAIL_INTERVAL_MS (at one a second
      // this window would hold eight or nine; a scroll sent redrawn now and then allows six),
      // counted once two frames have shown the move.
      await tile.waitForFrames(tile.frames + 2);
      const before = tile.frames;
      const watchMs = 4 * MOVING_THUMBNAIL_INTERVAL_MS + 200;
      await new Promise((resolve) => setTimeout(resolve, watchMs));
      const count = tile.frames - before;
      console.log(`scrolling, in ${watchMs} ms: ${count} thumbnail frames`);
      expect(count).toBeGreaterThanOrEqual(3);
      expect(count).toBeLessThanOrEqual(6);
      const { counts, longest } = blobsPerImage(tile, size);
      expect(counts.length).toBeGreaterThan(1);
      expect(counts.every((n) => n === 1)).toBe(true);
      expect(longest).toBeGreaterThan(8064); // guacd's limit: 6048 bytes as base64

      // Once it stops: the thumbnail is the desktop scaled down, pixel for pixel.
      await rm(scrolling);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const root = await captureRoot(desktop.env);
      const expected = scaleDown(root.rgba, root, size);
      await tile.waitFor(
        () => meanDifference(expected, tile.screen.rgba) === 0,
        'the thumbnail to equal xwd scaled down',
      );

      // What changes now does not move (the root's colour, every 400 ms): once a few frames
      // without a move have passed, a frame a second again (a window of eight seconds holds
      // eight ticks; at one frame every two seconds it would hold four).
      let recolouring = true;
      const recolour = (async () => {
        const colours = ['#2040c0', '#20c040', '#c0c020', '#c020c0'];
        for (let i = 0; recolouring; i++) {
          await run('xsetroot', ['-solid', colours[i % colours.length]!], { env: desktop.env });
          await new Promise((resolve) => setTimeout(resolve, 400));
        }
      })();
      try {
        await tile.waitForFrames(tile.frames + 4, 4 * MOVING_THUMBNAIL_INTERVAL_MS + 1000);
        const still = tile.frames;
        const stillMs = 8 * GLANCE_FRAME_INTERVAL_MS;
        await new Promise((resolve) => setTimeout(resolve, stillMs));
        const stillCount = tile.frames - still;
        console.log(`not moving, in ${stillMs} ms: ${stillCount} thumbnail frames`);
        expect(stillCount).toBeGreaterThanOrEqual(6);
      } finally {
        recolouring = false;
        await recolour;
      }
    } finally {
      xterm.kill();
    }
  });
});
