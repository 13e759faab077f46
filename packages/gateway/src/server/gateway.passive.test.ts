// A passive watcher (`x-oc-passive`, packages/guac's attention.ts: the bridge's recorder) against
// a real Xvnc whose xterm prints constantly: beside a viewer that acknowledges slowly it gets the
// viewer's frames and no more, so the gateway encodes about one stream at the viewer's pace
// (before, the recorder ran ahead alone and the gateway encoded two); a browser that says it is
// passive only changes its own frames (the viewer beside it goes on while it holds its `sync`,
// a malformed request ends only its own connection); and a connection with the passive watcher
// alone still ends exact against `xwd` once the screen stops changing.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GuacStatus, PASSIVE_OPCODE } from '@overlay-companion/guac';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuacTestClient } from '../testing/guacTestClient.js';
import {
  claimPointer,
  screenDifferences,
  startPrintingDesktop,
  type PrintingDesktop,
} from '../testing/printingDesktop.js';
import { MAX_FRAMES_IN_FLIGHT } from '../session/guacUser.js';

/** How often the slow viewer acknowledges what it has: slower than the stream waits for it. */
const SLOW_ACK_EVERY_MS = 200;
const EXACT = { mismatches: 0 };

describe('gateway passive watcher', () => {
  let printing: PrintingDesktop;
  /** Frames encoded by the gateway so far (GatewayOptions.onFrameEncoded). */
  let encoded = 0;
  let stopFile: string;
  let work: string;
  const clients: GuacTestClient[] = [];
  const timers: NodeJS.Timeout[] = [];
  const connectFirst = (): Promise<GuacTestClient> =>
    GuacTestClient.connect(printing.gateway, { select: 'vnc', params: printing.params() });
  const joinTo = (first: GuacTestClient): Promise<GuacTestClient> =>
    GuacTestClient.connect(printing.gateway, { select: first.connectionId });

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'oc-passive-'));
    stopFile = join(work, 'stop');
    printing = await startPrintingDesktop({
      // Prints until the last test makes the screen still.
      script: `while [ ! -e ${stopFile} ]; do date +%s%N; sleep 0.03; done; sleep 600`,
      onFrameEncoded: () => encoded++,
    });
  });

  afterAll(async () => {
    for (const timer of timers) clearInterval(timer);
    for (const client of clients) client.close();
    await printing?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('gives a passive watcher the slow viewer’s frames: about one stream is encoded', async () => {
    const viewer = await connectFirst();
    clients.push(viewer);
    await viewer.waitForFrames(1);
    const recorder = await joinTo(viewer);
    clients.push(recorder);
    recorder.send(PASSIVE_OPCODE);
    await recorder.waitForFrames(3);
    // The viewer falls behind: it acknowledges only every SLOW_ACK_EVERY_MS, past STEP_WAIT_MS.
    viewer.autoSync = false;
    const acks = setInterval(() => viewer.acknowledge(), SLOW_ACK_EVERY_MS);
    timers.push(acks);
    await viewer.waitFor(() => viewer.frames > 5, 'the slow viewer to take frames');
    const [encodedBefore, viewerBefore, recorderBefore] = [encoded, viewer.frames, recorder.frames];
    await viewer.waitFor(() => viewer.frames > viewerBefore + 20, '20 more frames', 30_000);
    const viewerFrames = viewer.frames - viewerBefore;
    const recorderFrames = recorder.frames - recorderBefore;
    const encodes = encoded - encodedBefore;
    console.log(
      `slow viewer ${String(viewerFrames)} frames, passive watcher ${String(recorderFrames)}, ${String(encodes)} encodes`,
    );
    // The watcher never runs ahead of the viewer (a non-passive one took several times as many
    // frames, each encoded for it alone)...
    expect(recorderFrames).toBeLessThanOrEqual(viewerFrames + 2);
    // ...and one encode serves both (the odd own frame of a watcher out of step aside).
    expect(encodes).toBeLessThanOrEqual(Math.ceil(1.25 * viewerFrames) + 2);
    clearInterval(acks);
    viewer.autoSync = true;
    viewer.acknowledge();
    claimPointer(viewer, 790, 490);
    expect(await screenDifferences(printing.desktop, [viewer, recorder])).toEqual([EXACT, EXACT]);
    viewer.close();
    recorder.close();
  });

  it('lets a browser that says it is passive change only its own frames', async () => {
    const viewer = await connectFirst();
    clients.push(viewer);
    await viewer.waitForFrames(1);
    // An ordinary browser joined to the same connection that says it is passive, then holds sync.
    const passive = await joinTo(viewer);
    clients.push(passive);
    passive.send(PASSIVE_OPCODE);
    await passive.waitForFrames(3);
    passive.autoSync = false;
    await passive.waitFor(
      () => passive.unacknowledged.length >= MAX_FRAMES_IN_FLIGHT,
      'the passive browser to fill its window',
    );
    const [viewerBefore, passiveBefore] = [viewer.frames, passive.frames];
    await viewer.waitFor(() => viewer.frames > viewerBefore + 15, 'the viewer to go on');
    expect(passive.frames).toBe(passiveBefore);

    // A malformed request ends the sender's connection only.
    const malformed = await joinTo(viewer);
    clients.push(malformed);
    malformed.send(PASSIVE_OPCODE, 'everyone');
    expect((await malformed.waitForError()).status).toBe(GuacStatus.CLIENT_BAD_REQUEST);
    const viewerThen = viewer.frames;
    await viewer.waitFor(() => viewer.frames > viewerThen + 15, 'the viewer to go on still');

    passive.autoSync = true;
    passive.acknowledge();
    claimPointer(viewer, 780, 480);
    expect(await screenDifferences(printing.desktop, [viewer, passive])).toEqual([EXACT, EXACT]);
    // Caught up, the passive one is back in step: one encode serves both again.
    const [encodedThen, viewerNow, passiveNow] = [encoded, viewer.frames, passive.frames];
    await viewer.waitFor(() => viewer.frames > viewerNow + 30, '30 more frames');
    const sent = viewer.frames - viewerNow + (passive.frames - passiveNow);
    expect(encoded - encodedThen).toBeLessThan(0.65 * sent);
    viewer.close();
    passive.close();
  });

  it('paces a passive watcher alone and its last frame equals the screen', async () => {
    const viewer = await connectFirst();
    clients.push(viewer);
    await viewer.waitForFrames(1);
    claimPointer(viewer, 770, 470);
    const recorder = await joinTo(viewer);
    clients.push(recorder);
    recorder.send(PASSIVE_OPCODE);
    await recorder.waitForFrames(3);
    viewer.close(); // the watcher is alone on the connection while the xterm prints
    const [encodedBefore, recorderBefore] = [encoded, recorder.frames];
    await recorder.waitFor(() => recorder.frames > recorderBefore + 3, '3 frames alone', 30_000);
    const startedAt = Date.now();
    await recorder.waitFor(() => recorder.frames > recorderBefore + 6, '6 frames alone', 30_000);
    console.log(
      `passive watcher alone: ${String(recorder.frames - recorderBefore)} frames from ${String(encoded - encodedBefore)} encodes, the last 3 in ${String(Date.now() - startedAt)} ms`,
    );
    await writeFile(stopFile, '');
    expect(await screenDifferences(printing.desktop, [recorder])).toEqual([EXACT]);
    recorder.close();
  });
});
