// The bridge blacks privacy masks out of every screenshot itself, whatever the page sent: a
// scripted page (a fake viewer at the socket edge) answers take_screenshot with an all-white
// image, and the image a real MCP client gets is black exactly where the person's mask is,
// decoded and checked pixel by pixel with sharp; an unreadable image is refused, not passed on.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient, startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';

const WIDTH = 200;
const HEIGHT = 100;

async function white(format: 'png' | 'jpeg', width = WIDTH, height = HEIGHT): Promise<string> {
  const image = sharp({
    create: { width, height, channels: 3, background: '#ffffff' },
  });
  const buffer = await (format === 'png' ? image.png() : image.jpeg({ quality: 95 })).toBuffer();
  return buffer.toString('base64');
}

function screenshot(
  data: string,
  format: 'png' | 'jpeg',
  region = { x: 0, y: 0, width: WIDTH, height: HEIGHT },
  scale = 1,
) {
  return {
    width: Math.round(region.width * scale),
    height: Math.round(region.height * scale),
    region,
    scale,
    monitor_index: 0,
    display_scale: 1,
    viewport_scroll: { x: 0, y: 0 },
    format,
    byte_length: Buffer.from(data, 'base64').length,
    data,
  };
}

async function pixels(base64: string): Promise<{ at: (x: number, y: number) => number[] }> {
  const { data, info } = await sharp(Buffer.from(base64, 'base64'))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    at: (x, y) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)],
  };
}

function imageOf(result: Awaited<ReturnType<typeof callTool>>): string {
  const image = result.content.find((c) => c.type === 'image');
  if (image?.type !== 'image') throw new Error('no image in the result');
  return image.data;
}

describe('privacy masks in the bridge', () => {
  let bridge: TestBridge;
  let client: Client;
  let viewer: ScriptedViewer;
  const mask = { x: 20, y: 10, width: 50, height: 30 };

  beforeAll(async () => {
    bridge = await startTestBridge();
    ({ client } = await connectClient(bridge));
    viewer = await ScriptedViewer.connect(bridge);
    bridge.adminPlane.hub.setLayout({
      monitors: [{ x: 0, y: 0, width: WIDTH, height: HEIGHT }],
      masks: [mask],
    });
  });
  afterAll(async () => {
    await viewer.close();
    await client.close();
    await bridge.close();
  });

  it('paints the mask black in a PNG the page left white, and nothing else', async () => {
    viewer.on('take_screenshot', { result: screenshot(await white('png'), 'png') });
    const image = await pixels(imageOf(await callTool(client, 'take_screenshot', {})));
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        const inside = x >= 20 && x < 70 && y >= 10 && y < 40;
        expect(image.at(x, y), `${x},${y}`).toEqual(inside ? [0, 0, 0] : [255, 255, 255]);
      }
    }
  });

  it('maps the mask through the region and scale, and masks JPEGs too', async () => {
    const region = { x: 40, y: 0, width: 100, height: 50 };
    viewer.on('take_screenshot', {
      result: screenshot(await white('jpeg', 200, 100), 'jpeg', region, 2),
    });
    const result = await callTool(client, 'take_screenshot', { region, scale: 2, format: 'jpeg' });
    const image = await pixels(imageOf(result));
    // The mask's desktop x 40..70 is image x 0..60 at scale 2; y 10..40 is 20..80.
    expect(image.at(5, 25)).toEqual([0, 0, 0]);
    expect(image.at(55, 75)).toEqual([0, 0, 0]);
    for (const [x, y] of [
      [65, 50],
      [100, 50],
      [30, 5],
      [30, 90],
    ] as const) {
      const [r = 0, g = 0, b = 0] = image.at(x, y);
      expect(Math.min(r, g, b), `${x},${y}`).toBeGreaterThan(240);
    }
  });

  it('refuses to pass on an image it cannot read or whose size is not what the page said', async () => {
    viewer.on('take_screenshot', {
      result: screenshot(await white('png', 10, 10), 'png'),
    });
    const wrongSize = await callTool(client, 'take_screenshot', {});
    expect(errorOf(wrongSize)).toMatchObject({ kind: 'system_error' });
    expect(wrongSize.content.some((c) => c.type === 'image')).toBe(false);
    viewer.on('take_screenshot', { result: screenshot('AAAA', 'png') });
    expect(errorOf(await callTool(client, 'take_screenshot', {})).message).toMatch(
      /privacy masks, so it was not sent/,
    );
  });
});
