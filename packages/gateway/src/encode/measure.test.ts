// Full-frame encode cost on real desktop pixels: a 1280×800 Xvnc with a window manager and
// an xterm full of text, captured with xwd. Prints p50/p99 and bytes per frame, and fails if
// encoding got pathologically slow (the bar is generous: the machine is shared).
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { startGateway } from '../server/gateway.js';
import { captureRoot } from '../testing/desktopCapture.js';
import { waitForVisibleWindow } from '../testing/xWindows.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { measureRegionEncode } from './measure.js';

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

  it('encodes 1280×800 in well under 100 ms', async () => {
    const shot = await captureRoot(desktop.display);
    expect([shot.width, shot.height]).toEqual([1280, 800]);
    const result = await measureRegionEncode(shot.rgba, shot.width, shot.height, {
      iterations: 40,
    });
    pino().info({ ...result }, 'full-frame 1280x800 PNG encode');
    expect(result.p50Ms).toBeLessThan(100);
    expect(result.pngBytes).toBeGreaterThan(1000);
  });

  it('delivers the first full 1280×800 frame through the gateway', async () => {
    const gateway = await startGateway({ port: 0, logger: pino({ level: 'silent' }) });
    try {
      const client = await GuacTestClient.connect(gateway.port, {
        select: 'vnc',
        params: { hostname: desktop.host, port: String(desktop.port) },
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
