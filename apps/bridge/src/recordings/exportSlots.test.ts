// Video exports are limited (exportSlots.ts): one rendering per person — a second tab or a script
// with their session is refused with a 429 saying to wait for the first — and a few for the whole
// bridge (a quarter of the CPUs, at least one), refused with a 429 saying to try again later or
// take the event track now. And an export whose request goes away is stopped: an export nobody
// will receive (a person who closed the tab, a script that asked and hung up) of a long recording
// held its slot at "try again later" for as long as it took to render — hours for a day-long
// recording. The slots themselves, then a real bridge over HTTP with real ffmpeg rendering a
// six-hour recording (its render would take far longer than this test).
import { eventually } from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { addPerson } from '../perimeter/testing/people.js';
import type { BrowserSession } from '../testing/browserSession.js';
import { EXPORT_RETRY_MS, ExportSlots, VIDEO_EXPORTS_PER_BRIDGE } from './exportSlots.js';
import { writeSampleRecording, writeSixHourRecording } from './testing/sampleRecording.js';

const MINE = /You already have a video export rendering/;
const FULL = /The bridge is already rendering \d+ video exports?/;

describe('export slots', () => {
  it('one per person, a few per bridge, freed once each', () => {
    const slots = new ExportSlots(2);
    const ada = slots.take('ada');
    expect(ada.ok).toBe(true);
    const refusal = (taken: ReturnType<ExportSlots['take']>) => (taken.ok ? '' : taken.message);
    expect(refusal(slots.take('ada'))).toMatch(MINE);
    expect(slots.take('bo').ok).toBe(true);
    expect(refusal(slots.take('cy'))).toMatch(FULL);
    if (ada.ok) {
      ada.release();
      ada.release();
    }
    expect(slots.take('cy').ok).toBe(true);
    expect(slots.take('dee').ok).toBe(false);
  });
});

describe('video exports over HTTP', () => {
  let bridge: TestBridge;
  let watcher: BrowserSession;
  let long: string;
  let short: string;

  beforeAll(async () => {
    bridge = await startTestBridge();
    const desktopId = (await bridge.desktopControl.directory.cliDesktopId()) ?? '';
    long = await writeSixHourRecording(bridge, desktopId);
    short = await writeSampleRecording(bridge, desktopId, Date.now() - 10_000);
    ({ session: watcher } = await addPerson(bridge.session, 'cy', { grant: 'view' }));
  });
  afterAll(async () => {
    await bridge?.close();
  });

  const exportAs = async (session: BrowserSession, id: string, signal?: AbortSignal) => {
    const res = await fetch(new URL(`/api/recordings/${id}/export.webm`, session.url), {
      headers: { cookie: session.cookie, origin: new URL(session.url).origin },
      ...(signal === undefined ? {} : { signal }),
    });
    const body = await res.arrayBuffer();
    return { status: res.status, body, text: new TextDecoder().decode(body) };
  };

  it('stops an export whose request went away, and the next export runs', async () => {
    const hangUp = new AbortController();
    const first = exportAs(bridge.session, long, hangUp.signal).catch(() => undefined);
    // Under way: it holds its slot (the person's one export).
    await eventually('the long export holds its slot', async () => {
      return (await exportAs(bridge.session, short)).status === 429;
    });
    hangUp.abort();
    await first;
    const next = await eventually(
      'the next export runs',
      async () => {
        const res = await exportAs(bridge.session, short);
        return res.status === 200 ? res.body : false;
      },
      20_000,
    );
    // A WebM file (EBML magic).
    expect([...new Uint8Array(next.slice(0, 4))]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
  });

  it('refuses a person’s second export while the first renders; the bridge’s limit holds for others', async () => {
    const hangUp = new AbortController();
    const first = exportAs(bridge.session, long, hangUp.signal).catch(() => undefined);
    const again = await eventually('the admin’s second export is refused', async () => {
      const res = await exportAs(bridge.session, short);
      return res.status === 429 ? res : false;
    });
    expect(again.text).toMatch(MINE);
    expect(JSON.parse(again.text)).toMatchObject({ retry_after_ms: EXPORT_RETRY_MS });
    // Another person: refused while the bridge is at its limit (one on a machine of up to 7
    // CPUs, like this one), rendered where it has room for more.
    const theirs = await exportAs(watcher, short);
    if (VIDEO_EXPORTS_PER_BRIDGE === 1) {
      expect(theirs.status).toBe(429);
      expect(theirs.text).toMatch(FULL);
    } else {
      expect(theirs.status).toBe(200);
    }
    hangUp.abort();
    await first;
    const next = await eventually(
      'the watcher’s export runs once the slot is free',
      async () => {
        const res = await exportAs(watcher, short);
        return res.status === 200 ? res.body : false;
      },
      20_000,
    );
    // A WebM file (EBML magic).
    expect([...new Uint8Array(next.slice(0, 4))]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
  }, 60_000);
});
