// Guacamole's own player reads our files: the exact guacamole-common-js the viewer ships (1.5.0)
// loads a recording in a real Chromium (Debian's, through playwright-core) with
// Guacamole.SessionRecording, unchanged, reports its duration, and after a seek shows, pixel
// for pixel, what our reader gives for the same moment — passthrough frames, the frames the
// writer composes while a mask is in force, and the frame when the mask goes.
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingReader } from './reader.js';
import { imageStream, ins, solidPng } from './testing/streams.js';
import { RecordingWriter } from './writer.js';

const CHROMIUM = process.env.OC_CHROMIUM?.trim() || '/usr/bin/chromium';
const W = 160;
const H = 120;
const t0 = 1_700_004_000_000;

function chromiumMissing(): string | undefined {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return undefined;
  } catch {
    return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set OC_CHROMIUM)`;
  }
}

// Runs in the page (plain browser JavaScript, so Node's types stay out of it).
// 1.5.0 cannot play a Blob: its Blob path reads a variable it never sets ("Cannot read properties
// of undefined (reading 'size')", for guacd's recordings as much as ours). The official player's
// way works: a StaticHTTPTunnel on the file's URL.
const PLAYER = `
  window.loadRecording = async (base64) => {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const url = URL.createObjectURL(new Blob([bytes]));
    const recording = new Guacamole.SessionRecording(new Guacamole.StaticHTTPTunnel(url));
    window.recording = recording;
    await new Promise((resolve, reject) => {
      recording.onload = resolve;
      recording.onerror = (message) => reject(new Error(message));
      recording.connect();
    });
    return recording.getDuration();
  };
  window.frameAt = async (position) => {
    await new Promise((resolve) => window.recording.seek(position, resolve));
    const display = window.recording.getDisplay();
    await new Promise((resolve) => display.flush(resolve));
    const canvas = display.flatten();
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    return { width: canvas.width, height: canvas.height, rgba: Array.from(data.data) };
  };
`;

describe('Guacamole.SessionRecording (guacamole-common-js 1.5.0) plays our recordings', () => {
  const missing = chromiumMissing();
  let dir: string;
  let browser: Browser | undefined;
  let id: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-rec-player-'));
    const writer = await RecordingWriter.create({
      dir,
      keyframeIntervalMs: 1000,
      maxKeyframeIntervalMs: 1000,
    });
    const feed = (t: number, instructions: ReturnType<typeof ins>[]): void => {
      for (const i of [...instructions, ins('sync', t)]) writer.feed(i, t);
    };
    feed(t0, [ins('size', 0, W, H), ...imageStream(1, 0, 0, 0, await solidPng(W, H, [0, 0, 200]))]);
    feed(t0 + 1000, [ins('rect', 0, 20, 20, 50, 30), ins('cfill', 14, 0, 200, 0, 0, 255)]);
    writer.setMasks([{ x: 60, y: 40, width: 40, height: 40 }], t0 + 1500);
    feed(t0 + 2000, imageStream(2, 0, 50, 50, await solidPng(40, 40, [255, 0, 255])));
    writer.setMasks([], t0 + 2500);
    feed(t0 + 3000, [
      ins('copy', 0, 0, 0, 80, 60, 14, -2, 0, 0),
      ins('copy', -2, 0, 0, 80, 60, 14, 0, 80, 60),
    ]);
    id = (await writer.close()).id;
    if (!missing)
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the file, reports its duration, and seeks to the same pictures our reader gives', async (ctx) => {
    if (missing || !browser) {
      console.warn(`[recording] SessionRecording test skipped: ${missing}`);
      return ctx.skip(missing);
    }
    const reader = await RecordingReader.open(dir, id);
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    const require = createRequire(import.meta.url);
    const library = await readFile(require.resolve('guacamole-common-js'), 'utf8');
    await page.addScriptTag({ content: `var module = { exports: {} };\n${library}` });
    const file = (await readFile(reader.paths.recording)).toString('base64');

    await page.addScriptTag({ content: PLAYER });
    const duration = await page.evaluate<number>(`loadRecording(${JSON.stringify(file)})`);
    expect(duration).toBe(reader.end - reader.start);

    // At each frame's own time: 1.5.0's seek looks frames up by a binary search that lands on
    // the exact frame for a frame's timestamp, but not always on the last one before a time
    // between frames.
    for (const at of [0, 1000, 1500, 2000, 2500, 3000, 1000, 0]) {
      const pixels = await page.evaluate<{ width: number; height: number; rgba: number[] }>(
        `frameAt(${at})`,
      );
      const ours = await reader.pictureAt(t0 + at);
      expect([pixels.width, pixels.height], `at ${at} ms`).toEqual([W, H]);
      let differing = 0;
      for (let o = 0; o < ours.rgba.length; o += 4)
        if ([0, 1, 2].some((c) => ours.rgba[o + c] !== pixels.rgba[o + c])) differing++;
      expect(differing, `pixels differing from our reader at ${at} ms`).toBe(0);
    }
  });
});
