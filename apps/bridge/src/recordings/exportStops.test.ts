// A video export whose request goes away is stopped: the bridge renders a few exports at a time
// (exportSlots.ts), so an export nobody will receive (a person who closed the tab, a script that
// asked and hung up) of a long recording held its slot at "try again later" for as long as it
// took to render — hours for a day-long recording. A real bridge over HTTP, real ffmpeg, and a
// recording six hours long (its render would take far longer than this test).
import { eventually } from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { writeSampleRecording, writeSixHourRecording } from './testing/sampleRecording.js';

describe('a video export whose request goes away', () => {
  let bridge: TestBridge;
  let long: string;
  let short: string;

  beforeAll(async () => {
    bridge = await startTestBridge();
    const desktopId = (await bridge.desktopControl.directory.cliDesktopId()) ?? '';
    long = await writeSixHourRecording(bridge, desktopId);
    short = await writeSampleRecording(bridge, desktopId, Date.now() - 10_000);
  });
  afterAll(async () => {
    await bridge?.close();
  });

  const exportOf = (id: string, signal?: AbortSignal) =>
    fetch(new URL(`/api/recordings/${id}/export.webm`, bridge.session.url), {
      headers: { cookie: bridge.session.cookie, origin: new URL(bridge.session.url).origin },
      ...(signal === undefined ? {} : { signal }),
    });

  it('is stopped, and the next export runs', async () => {
    const hangUp = new AbortController();
    const first = exportOf(long, hangUp.signal).catch(() => undefined);
    // Under way: it holds its slot (the person's one export).
    await eventually('the long export holds the export', async () => {
      const res = await exportOf(short);
      await res.arrayBuffer();
      return res.status === 429;
    });
    hangUp.abort();
    await first;
    const next = await eventually(
      'the next export runs',
      async () => {
        const res = await exportOf(short);
        const body = await res.arrayBuffer();
        return res.status === 200 ? body : false;
      },
      20_000,
    );
    // A WebM file (EBML magic).
    expect([...new Uint8Array(next.slice(0, 4))]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
  });
});
