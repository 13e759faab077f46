// The shared frame stream (session/sharedFrames.ts) against a real Xvnc whose xterm prints
// constantly: two browsers at full attention that keep up — a person's viewer and the recorder,
// which joins as one more user — get each frame encoded once between them, not once each; when
// one stops acknowledging, the other keeps receiving frames (it is never held at the slow one's
// pace), and once the slow one acknowledges again both converge on the exact X screen and share
// one encode again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuacTestClient } from '../testing/guacTestClient.js';
import {
  claimPointer,
  screenDifferences,
  startPrintingDesktop,
  type PrintingDesktop,
} from '../testing/printingDesktop.js';
import { MAX_FRAMES_IN_FLIGHT } from '../session/guacUser.js';

const EXACT = { mismatches: 0 };

describe('gateway shared frames', () => {
  let printing: PrintingDesktop;
  /** Frames encoded by the gateway so far (GatewayOptions.onFrameEncoded). */
  let encoded = 0;
  const clients: GuacTestClient[] = [];

  beforeAll(async () => {
    printing = await startPrintingDesktop({ onFrameEncoded: () => encoded++ });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await printing?.close();
  });

  it('encodes each frame once for two browsers that keep up, and both stay exact', async () => {
    const viewer = await GuacTestClient.connect(printing.gateway, {
      select: 'vnc',
      params: printing.params(),
    });
    clients.push(viewer);
    await viewer.waitForFrames(1);
    const recorder = await GuacTestClient.connect(printing.gateway, {
      select: viewer.connectionId,
    });
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
    expect(await screenDifferences(printing.desktop, [viewer, recorder])).toEqual([EXACT, EXACT]);
    viewer.close();
    recorder.close();
  });

  it('keeps one browser going while the other stops acknowledging, then both are exact', async () => {
    const fast = await GuacTestClient.connect(printing.gateway, {
      select: 'vnc',
      params: printing.params(),
    });
    clients.push(fast);
    await fast.waitForFrames(1);
    const slow = await GuacTestClient.connect(printing.gateway, { select: fast.connectionId });
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
    expect(await screenDifferences(printing.desktop, [slow, fast])).toEqual([EXACT, EXACT]);

    // Caught up, the slow one is back in step: one encode serves both again.
    const [encodedThen, fastThen, slowThen] = [encoded, fast.frames, slow.frames];
    await fast.waitFor(() => fast.frames > fastThen + 30, '30 more frames');
    const sent = fast.frames - fastThen + (slow.frames - slowThen);
    expect(encoded - encodedThen).toBeLessThan(0.65 * sent);
    fast.close();
    slow.close();
  });
});
