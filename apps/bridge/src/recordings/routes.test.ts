// The recordings API as browsers meet it (real bridge, real sign-in over HTTP, SQLite): who sees
// which recording — its desktop's owner and admins, a person with a view grant; anyone else gets
// 404, exactly as for a recording that does not exist — the stream, the event track, a frame as
// PNG, the JSON-lines export, deletion (owner or admin only, audited), and the desktop's setting.
// The recording itself is written by the package's RecordingWriter from a small drawn stream.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { RecordingWriter, recordingPaths } from '@overlay-companion/recording';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/passwords.js';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { signIn, type BrowserSession } from '../testing/browserSession.js';
import { writeSampleRecording } from './testing/sampleRecording.js';

const PASSWORD = 'another-password-0123456789';

describe('the recordings API', () => {
  let bridge: TestBridge;
  let desktopId: string;
  let recordingId: string;
  let stranger: BrowserSession;
  let watcher: BrowserSession;
  const t0 = Date.now() - 10_000;

  beforeAll(async () => {
    bridge = await startTestBridge();
    desktopId = (await bridge.desktopControl.directory.cliDesktopId()) ?? '';
    const { store } = bridge.access;
    const hash = await hashPassword(PASSWORD);
    for (const username of ['bea', 'cy'])
      await store.people.add({
        username,
        displayName: username,
        passwordHash: hash,
        role: 'member',
      });
    const cy = await store.people.byUsername('cy');
    await store.desktops.setGrant(desktopId, cy?.id ?? '', 'view');
    stranger = await signIn(bridge.url, 'bea', PASSWORD);
    watcher = await signIn(bridge.url, 'cy', PASSWORD);

    // A 64×48 desktop: red, then green a second later; one AI click in the event track.
    recordingId = await writeSampleRecording(bridge, desktopId, t0, [
      {
        t: t0 + 500,
        kind: 'ai.action',
        id: 'a1',
        tool: 'click_at',
        args: { x: 3, y: 4 },
        decision: 'allowed',
        point: { x: 3, y: 4 },
      },
    ]);
  });

  afterAll(async () => {
    await bridge?.close();
  });

  const paths = () => [
    `/api/recordings/${recordingId}/stream`,
    `/api/recordings/${recordingId}/events`,
    `/api/recordings/${recordingId}/frame?t=${t0 + 100}`,
    `/api/recordings/${recordingId}/export.jsonl`,
    `/api/recordings/${recordingId}/export.webm`,
    `/api/recordings/${recordingId}/export.mp4`,
  ];

  it('lists the recording for the owner and a viewer, newest first, with its desktop', async () => {
    for (const session of [bridge.session, watcher]) {
      const res = await session.request('/api/recordings');
      expect(res.status).toBe(200);
      const { recordings } = (await res.json()) as { recordings: Record<string, unknown>[] };
      expect(recordings).toEqual([
        {
          id: recordingId,
          desktop: { id: desktopId, name: 'Desktop' },
          started_at: t0,
          ended_at: t0 + 1_000,
          bytes: expect.any(Number) as number,
          duration_ms: 1_000,
          gaps: [],
          live: false,
        },
      ]);
    }
  });

  it('answers 404 to anyone else, for every route, as for a recording that does not exist', async () => {
    const list = await stranger.request('/api/recordings');
    expect(await list.json()).toEqual({ recordings: [] });
    for (const path of [...paths(), '/api/recordings/nope/stream']) {
      const res = await stranger.request(path);
      expect(res.status, path).toBe(404);
    }
    const del = await stranger.request(`/api/recordings/${recordingId}`, { method: 'DELETE' });
    expect(del.status).toBe(404);
    const mode = await stranger.request(`/api/desktops/${desktopId}/recording`, {
      method: 'PUT',
      body: { mode: 'on' },
    });
    expect(mode.status).toBe(404);
  });

  it('gives a viewer the stream, the event track, a frame and the export', async () => {
    const stream = await watcher.request(paths()[0] ?? '');
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('application/octet-stream');
    const file = await readFile(recordingPaths(bridge.recordings.dir, recordingId).recording);
    expect(Buffer.from(await stream.arrayBuffer()).equals(file)).toBe(true);

    const events = (await (await watcher.request(paths()[1] ?? '')).json()) as {
      events: { kind: string; tool?: string }[];
    };
    expect(events.events.filter((e) => e.kind === 'ai.action')).toMatchObject([
      { tool: 'click_at', point: { x: 3, y: 4 } },
    ]);

    for (const [t, rgb] of [
      [t0 + 100, [255, 0, 0]],
      [t0 + 1_500, [0, 255, 0]],
    ] as const) {
      const frame = await watcher.request(`/api/recordings/${recordingId}/frame?t=${t}&width=32`);
      expect(frame.status).toBe(200);
      expect(frame.headers.get('content-type')).toBe('image/png');
      const { data, info } = await sharp(Buffer.from(await frame.arrayBuffer()))
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([32, 24]);
      expect([...data.subarray(0, 3)]).toEqual(rgb);
    }

    const jsonl = await watcher.request(paths()[3] ?? '');
    expect(jsonl.status).toBe(200);
    const lines = (await jsonl.text()).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { kind: string }).kind)).toContain('ai.action');
  });

  it('exports the recording as a WebM video', async () => {
    const res = await watcher.request(`/api/recordings/${recordingId}/export.webm`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/webm');
    const bytes = Buffer.from(await res.arrayBuffer());
    // WebM is Matroska: the EBML magic number first.
    expect(bytes.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
  });

  it('exports the recording as an MP4 video, the format the recordings page offers', async () => {
    const res = await watcher.request(`/api/recordings/${recordingId}/export.mp4`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-disposition')).toContain(`recording-${recordingId}.mp4`);
    const bytes = Buffer.from(await res.arrayBuffer());
    // An ISO media file: its first box is 'ftyp'.
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('renders one video export at a time, and frames in turns, however many arrive together', async () => {
    const exports = await Promise.all(
      [1, 2, 3].map(() => watcher.request(`/api/recordings/${recordingId}/export.webm`)),
    );
    await Promise.all(exports.map((r) => r.arrayBuffer()));
    expect(exports.map((r) => r.status).sort()).toEqual([200, 429, 429]);
    const frames = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        watcher.request(`/api/recordings/${recordingId}/frame?t=${t0 + i}&width=8`),
      ),
    );
    await Promise.all(frames.map((r) => r.arrayBuffer()));
    const statuses = frames.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(34);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
  });

  it('audits viewing and exporting', async () => {
    await bridge.access.audit.flush();
    const entries = await bridge.access.store.audit.query({ limit: 50 });
    const about = entries.filter((e) => e.summary?.includes(recordingId));
    expect(about.map((e) => [e.kind, e.detail])).toEqual(
      expect.arrayContaining([
        ['recording_viewed', 'recording viewed'],
        ['recording_exported', 'recording exported (event track, JSON lines)'],
        ['recording_exported', 'recording exported (video, WebM)'],
        ['recording_exported', 'recording exported (video, MP4)'],
      ]),
    );
    // Kinds of their own, so the audit page filters them: none goes as a desktop change.
    expect(about.filter((e) => e.kind === 'desktop_changed')).toEqual([]);
    const filtered = await bridge.access.store.audit.query({
      limit: 50,
      kind: 'recording_exported',
    });
    expect(filtered.filter((e) => e.summary?.includes(recordingId)).length).toBeGreaterThanOrEqual(
      2,
    );
    expect(new Set(filtered.map((e) => e.kind))).toEqual(new Set(['recording_exported']));
  });

  it('closes, at start, a recording an earlier run left open, from its files', async () => {
    const writer = await RecordingWriter.create({ dir: bridge.recordings.dir });
    writer.feed({ opcode: 'size', args: ['0', '8', '8'] }, t0);
    writer.feed({ opcode: 'sync', args: [String(t0 + 2_000)] }, t0 + 2_000);
    const summary = await writer.close();
    const { store } = bridge.access;
    await store.recordings.add({ id: summary.id, desktopId, ownerId: null, startedAt: t0 });
    await bridge.recordings.recover();
    expect(await store.recordings.byId(summary.id)).toMatchObject({
      endedAt: t0 + 2_000,
      bytes: summary.bytes,
      gaps: [],
    });
    await store.recordings.remove(summary.id);
  });

  it('leaves a `person` desktop to the person in charge, within what the admin allows', async () => {
    const put = (session: BrowserSession, path: string, body: unknown) =>
      session.request(path, { method: 'PUT', body });
    const setting = `/api/desktops/${desktopId}/recording`;
    const mode = await put(bridge.session, setting, { mode: 'person' });
    expect(await mode.json()).toMatchObject({ mode: 'person', choice: null, may_change: true });
    expect((await put(watcher, `${setting}/choice`, { on: true })).status).toBe(403);
    const chosen = await put(bridge.session, `${setting}/choice`, { on: true });
    expect(await chosen.json()).toMatchObject({ mode: 'person', choice: true });
    expect(
      (await put(watcher, '/api/settings/recording', { person_may_turn_off: false })).status,
    ).toBe(403);
    const locked = await put(bridge.session, '/api/settings/recording', {
      person_may_turn_off: false,
    });
    expect(await locked.json()).toMatchObject({ default_mode: 'off', person_may_turn_off: false });
    expect((await put(bridge.session, `${setting}/choice`, { on: false })).status).toBe(403);
    await put(bridge.session, '/api/settings/recording', { person_may_turn_off: true });
    await put(bridge.session, setting, { mode: 'off' });
  });

  it('lets only the owner or an admin change the setting or delete the recording', async () => {
    const mode = await watcher.request(`/api/desktops/${desktopId}/recording`, {
      method: 'PUT',
      body: { mode: 'off' },
    });
    expect(mode.status).toBe(403);
    const refused = await watcher.request(`/api/recordings/${recordingId}`, { method: 'DELETE' });
    expect(refused.status).toBe(403);

    const deleted = await bridge.session.request(`/api/recordings/${recordingId}`, {
      method: 'DELETE',
    });
    expect(deleted.status).toBe(204);
    expect(existsSync(recordingPaths(bridge.recordings.dir, recordingId).recording)).toBe(false);
    const list = await bridge.session.request('/api/recordings');
    expect(await list.json()).toEqual({ recordings: [] });
    await bridge.access.audit.flush();
    const entries = await bridge.access.store.audit.query({ limit: 50 });
    expect(
      entries.some((e) => e.kind === 'recording_deleted' && e.detail === 'recording deleted'),
    ).toBe(true);
  });
});
