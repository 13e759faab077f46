// The full-frame measuring unit on real desktop pixels (a 1280×800 Xvnc with a window manager
// and an xterm full of text, captured with xwd): the PNG it measures is lossless — it decodes
// back to exactly the captured pixels — and its report is complete. Speed itself is reported
// by `npm run bench`, never asserted here.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { startGateway } from '../server/gateway.js';
import { captureRoot } from '../testing/desktopCapture.js';
import { waitForVisibleWindow } from '../testing/xWindows.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { measureRegionEncode } from './measure.js';
import { encodeRegionPng } from './png.js';
import sharp from 'sharp';

describe('full-frame PNG encode', () => {
  let desktop: LocalDesktop;
  beforeAll(async () => {
    desktop = await startLocalDesktop({
      width: 1280,
      height: 800,
      xterm: {
        command: ['sh', '-c', 'ls -laR /usr/share | head -200; sleep 600'],
        geometry: '150x45+20+20',
      },
    });
    await waitForVisibleWindow(desktop.env, 'xterm');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  });
  afterAll(async () => {
    await desktop?.stop();
  });

  it('measures a lossless full-frame encode and reports every sample', async () => {
    const shot = await captureRoot(desktop.env);
    expect([shot.width, shot.height]).toEqual([1280, 800]);
    const result = await measureRegionEncode(shot.rgba, shot.width, shot.height, {
      iterations: 5,
    });
    expect(result.samplesMs).toHaveLength(5);
    expect(result.p50Ms).toBeGreaterThan(0);
    const png = await encodeRegionPng(shot.rgba, shot.width, {
      x: 0,
      y: 0,
      width: shot.width,
      height: shot.height,
    });
    expect(result.pngBytes).toBe(png.length);
    const decoded = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect(decoded.info).toMatchObject({ width: 1280, height: 800, channels: 3 });
    let mismatches = 0;
    for (let i = 0, j = 0; i < shot.rgba.length; i += 4, j += 3) {
      if (
        shot.rgba[i] !== decoded.data[j] ||
        shot.rgba[i + 1] !== decoded.data[j + 1] ||
        shot.rgba[i + 2] !== decoded.data[j + 2]
      )
        mismatches++;
    }
    expect(mismatches).toBe(0);
  });

  it('delivers the first full 1280×800 frame through the gateway', async () => {
    const gateway = await startGateway({
      port: 0,
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
    });
    try {
      const client = await GuacTestClient.connect(gateway, {
        select: 'vnc',
        params: { hostname: desktop.rfbPath },
      });
      const start = performance.now();
      const before = client.socket.bytesRead;
      await client.waitForFrames(1);
      const firstFrame = {
        ms: performance.now() - start,
        wireBytes: client.socket.bytesRead - before,
      };
      pino().info(
        firstFrame,
        'first full frame through the gateway (RFB decode + PNG + wire + test-client decode)',
      );
      expect(client.screen.width).toBe(1280);
      client.close();
    } finally {
      await gateway.close();
    }
  });
});
