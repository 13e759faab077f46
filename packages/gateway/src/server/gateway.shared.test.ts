// The shared frame stream (session/sharedFrames.ts) against a real Xvnc whose xterm prints
// constantly: two browsers at full attention that keep up — a person's viewer and the recorder,
// which joins as one more user — get each frame encoded once between them, not once each; when
// one stops acknowledging, the other keeps receiving frames (it is never held at the slow one's
// pace), and once the slow one acknowledges again both converge on the exact X screen and share
// one encode again.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDesktop, type LocalDesktop } from '../desktop/localDesktop.js';
import { waitForScreenMatch } from '../testing/desktopCapture.js';
import { waitForVisibleWindow } from '../testing/xWindows.js';
import { GuacTestClient } from '../testing/guacTestClient.js';
import { MAX_FRAMES_IN_FLIGHT } from '../session/guacUser.js';
import { startGateway, type Gateway } from './gateway.js';

/** The pointer must be where a client put it, or TigerVNC draws it into the framebuffer. */
function claimPointer(client: GuacTestClient, x: number, y: number): void {
  client.send('mouse', x - 1, y - 1, 0);
  client.send('mouse', x, y, 0);
}

describe('gateway shared frames', () => {
  let desktop: LocalDesktop;
  let gateway: Gateway;
  /** Frames encoded by the gateway so far (GatewayOptions.onFrameEncoded). */
  let encoded = 0;
  const clients: GuacTestClient[] = [];
  const params = (): Record<string, string> => ({ hostname: desktop.rfbPath });

  beforeAll(async () => {
    desktop = await startLocalDesktop({
      width: 800,
      height: 500,
      xterm: {
        command: ['sh', '-c', 'while :; do date +%s%N; sleep 0.03; done'],
        geometry: '40x10+10+10',
      },
    });
    gateway = await startGateway({
      port: 0,
      vncUnixSockets: [desktop.rfbPath],
      logger: pino({ level: 'silent' }),
      keepAliveMs: 300,
      onFrameEncoded: () => encoded++,
    });
    await waitForVisibleWindow(desktop.env, 'xterm');
    await new Promise((resolve) => setTimeout(resolve, 300));
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await gateway?.close();
    await desktop?.stop();
  });

  it('encodes each frame once for two browsers that keep up, and both stay exact', async () => {
    const viewer = await GuacTestClient.connect(gateway, { select: 'vnc', params: params() });
    clients.push(viewer);
    await viewer.waitForFrames(1);
    const recorder = await GuacTestClient.connect(gateway, { select: viewer.connectionId });
    clients.push(recorder);
    await recorder.waitForFrames(3);
    // Both have had their first frames (the joiner's own full picture); from here on they share.
    await viewer.waitFor(() => viewer.frames > 10, 'the viewer to take frames');
    const [encodedBefore, viewerBefore, recorderBefore] = [encoded, viewer.frames, recorder.frames];
    await viewer.waitFor(() => viewer.frames > viewerBefore + 30, '30 more frames');
    const sent = viewer.frames - viewerBefore + (recorder.frames - recorderBefore);
    const encodes = encoded - encodedBefore;
    console.log(`${String(sent)} frames sent to two browsers from ${String(encodes)} encodes`);
    // Apart from the odd frame while one is out of step, one encode serves both.
    expect(encodes).toBeLessThan(0.65 * sent);
    claimPointer(viewer, 790, 490);
    for (const client of [viewer, recorder]) {
      expect(await waitForScreenMatch(desktop.env, () => client.screen)).toEqual({
        mismatches: 0,
      });
    }
    viewer.close();
    recorder.close();
  });

  it('keeps one browser going while the other stops acknowledging, then both are exact', async () => {
    const fast = await GuacTestClient.connect(gateway, { select: 'vnc', params: params() });
    clients.push(fast);
    await fast.waitForFrames(1);
    const slow = await GuacTestClient.connect(gateway, { select: fast.connectionId });
    clients.push(slow);
    await slow.waitForFrames(5);

    slow.autoSync = false;
    // The frames the slow one has unacknowledged fill its window, then it gets nothing more.
    await slow.waitFor(
      () => slow.unacknowledged.length >= MAX_FRAMES_IN_FLIGHT,
      'the slow browser to fill its window',
    );
    const [fastBefore, slowBefore] = [fast.frames, slow.frames];
    await fast.waitFor(() => fast.frames > fastBefore + 15, 'the fast browser to go on');
    expect(slow.frames).toBe(slowBefore);

    slow.autoSync = true;
    slow.acknowledge();
    // Not where the first test left it: TigerVNC would go on drawing its cursor there.
    claimPointer(fast, 780, 480);
    for (const client of [slow, fast]) {
      expect(await waitForScreenMatch(desktop.env, () => client.screen)).toEqual({
        mismatches: 0,
      });
    }

    // Caught up, the slow one is back in step: one encode serves both again.
    const [encodedThen, fastThen, slowThen] = [encoded, fast.frames, slow.frames];
    await fast.waitFor(() => fast.frames > fastThen + 30, '30 more frames');
    const sent = fast.frames - fastThen + (slow.frames - slowThen);
    expect(encoded - encodedThen).toBeLessThan(0.65 * sent);
    fast.close();
    slow.close();
  });
});
