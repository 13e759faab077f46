// Keeping recordings, with real files on disk, on SQLite and on a real PostgreSQL (skipped with
// the reason where there is none, a failure under OC_REQUIRE_POSTGRES=1): retention at start
// (age, the desktop's cap, the total, oldest first, audited; files no row lists removed; rows of
// an older bridge measured), periodically, and at once when an admin changes the limits through
// the settings API (validated; admins only), the admins' storage view; and on a real desktop
// (our gateway → Xvnc) whose AI keeps it busy: the recording being written is rotated as it grows
// and the oldest parts deleted, so the desktop's recordings stay near their cap while its window
// never waits; below the free space to keep, the recording stops writing, the window's indicator
// says why, and it resumes when there is room.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingReader, RecordingWriter, recordingPaths } from '@overlay-companion/recording';
import { afterAll, describe, expect, it, test } from 'vitest';
import type { AuditInput } from '../audit/auditLog.js';
import { hashPassword } from '../auth/passwords.js';
import { silentLogger } from '../logger.js';
import { startTestBridge, type TestBridge } from '../mcp/testing/fixtures.js';
import { newId } from '../store/ids.js';
import { openStore } from '../store/openStore.js';
import type { Store } from '../store/types.js';
import { postgresRequired, startTestPostgres } from '../store/testing/postgres.js';
import { signIn } from '../testing/browserSession.js';
import { startDesktopPath, type DesktopPath } from '../testing/desktopPaths.js';
import { TunnelClient } from '../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { RECORDING_RETENTION_KEY } from './recordingPolicy.js';
import { Recordings, type DiskSpace } from './recordingLifecycle.js';
import { DAY_MS } from './retention.js';
import { writeNoiseRecording } from './testing/sampleRecording.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const HOUR = 3_600_000;
const PASSWORD = 'another-password-0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const postgres = await startTestPostgres();
afterAll(async () => {
  if ('url' in postgres) await postgres.stop();
});

test('a real PostgreSQL runs the same tests (required when OC_REQUIRE_POSTGRES=1)', (ctx) => {
  if ('skip' in postgres) {
    if (postgresRequired()) throw new Error(`PostgreSQL tests cannot run: ${postgres.skip}`);
    ctx.skip(postgres.skip);
  }
});

interface Backend {
  name: 'sqlite' | 'postgres';
  databaseUrl(): Promise<string | undefined>;
}
const backends: Backend[] = [{ name: 'sqlite', databaseUrl: () => Promise.resolve(undefined) }];
if ('url' in postgres)
  backends.push({ name: 'postgres', databaseUrl: () => postgres.newDatabase() });

const allFiles = (dir: string, id: string) => Object.values(recordingPaths(dir, id));
const onDisk = (dir: string, id: string) => allFiles(dir, id).every((p) => existsSync(p));
const goneFromDisk = (dir: string, id: string) => allFiles(dir, id).every((p) => !existsSync(p));

describe.each(backends.map((b) => [b.name, b] as const))(
  'keeping recordings on %s',
  (_name, backend) => {
    /** A store of its own in a temp data dir, with a person and two desktops of theirs. */
    async function freshStore() {
      const dataDir = await mkdtemp(join(tmpdir(), 'oc-keeping-'));
      const store = await openStore({ dataDir, databaseUrl: await backend.databaseUrl() });
      const owner = await store.people.add({
        username: 'ada',
        displayName: 'Ada',
        passwordHash: await hashPassword(PASSWORD),
        role: 'admin',
      });
      const desktop = async (name: string) =>
        store.desktops.add({
          id: newId('dsk'),
          name,
          kind: 'vnc',
          params: {},
          secret: null,
          ownerId: owner.id,
        });
      const a = await desktop('Office PC');
      const b = await desktop('Build box');
      const dir = join(dataDir, 'recordings');
      const audits: AuditInput[] = [];
      const opened: Recordings[] = [];
      const recordings = (intervalMs?: number) => {
        const r = new Recordings({
          store,
          dir,
          logger: silentLogger(),
          masks: () => Promise.resolve([]),
          audit: (entry) => audits.push(entry),
          retention: { intervalMs },
        });
        opened.push(r);
        return r;
      };
      const close = async () => {
        for (const r of opened) await r.close();
        await store.close();
        await rm(dataDir, { recursive: true, force: true });
      };
      return { store, dir, owner, a, b, audits, recordings, close };
    }

    it('at start: deletes past the age, then the oldest over a desktop’s cap and over the total — audited; removes files no row lists; measures rows of an older bridge', async () => {
      const f = await freshStore();
      try {
        const now = Date.now();
        const write = (desktopId: string, t0: number, approxBytes = 600 * KiB) =>
          writeNoiseRecording(f.store, f.dir, { desktopId, ownerId: f.owner.id, t0, approxBytes });
        const ancient = await write(f.a.id, now - 40 * DAY_MS, 200 * KiB);
        const a1 = await write(f.a.id, now - 3 * HOUR);
        const a2 = await write(f.a.id, now - 2 * HOUR);
        const b1 = await write(f.b.id, now - 1.5 * HOUR);
        const a3 = await write(f.a.id, now - 1 * HOUR);
        // An older bridge's row, which did not count every file.
        const unmeasured = await write(f.b.id, now - 0.5 * HOUR);
        await f.store.recordings.update(unmeasured.id, { storedBytes: 0 });
        // Files of a recording whose row was never written (a start cut short).
        const orphan = await RecordingWriter.create({ dir: f.dir });
        const orphanId = (await orphan.close()).id;
        expect(onDisk(f.dir, orphanId)).toBe(true);

        const size = a2.storedBytes;
        // a: a1 + a2 + a3 (three sizes) over 2.5 → a1 goes. Then a2, a3, b1 and the unmeasured
        // one (four) over 3.5 in all → the oldest of them, a2, goes.
        await f.store.settings.set(RECORDING_RETENTION_KEY, {
          max_age_days: 30,
          max_desktop_bytes: Math.floor(2.5 * size),
          max_total_bytes: Math.floor(3.5 * size),
          min_free_bytes: 0,
        });
        await f.recordings().recover();

        const left = await f.store.recordings.list();
        expect(left.map((r) => r.id)).toEqual([unmeasured.id, a3.id, b1.id]);
        for (const gone of [ancient, a1, a2])
          expect(goneFromDisk(f.dir, gone.id), gone.id).toBe(true);
        for (const kept of [unmeasured, a3, b1]) expect(onDisk(f.dir, kept.id), kept.id).toBe(true);
        expect(goneFromDisk(f.dir, orphanId)).toBe(true);
        expect(left.find((r) => r.id === unmeasured.id)?.storedBytes).toBe(unmeasured.storedBytes);

        expect(f.audits).toHaveLength(3);
        expect(f.audits.map((e) => [e.kind, e.actor, e.personId])).toEqual(
          Array(3).fill(['recording_deleted', 'system', null]),
        );
        expect(f.audits.map((e) => e.summary)).toEqual([
          `recording ${ancient.id} of desktop "Office PC"`,
          `recording ${a1.id} of desktop "Office PC"`,
          `recording ${a2.id} of desktop "Office PC"`,
        ]);
        expect(f.audits[0]?.detail).toMatch(
          /^recording deleted by retention: older than 30 days \(/,
        );
        expect(f.audits[1]?.detail).toMatch(
          /^recording deleted by retention: the desktop's recordings over /,
        );
        expect(f.audits[2]?.detail).toMatch(
          /^recording deleted by retention: all recordings over /,
        );
      } finally {
        await f.close();
      }
    });

    it('periodically: a recording that passes the age while the bridge runs goes at the next pass', async () => {
      const f = await freshStore();
      try {
        await f.store.settings.set(RECORDING_RETENTION_KEY, { max_age_days: 7, min_free_bytes: 0 });
        const recordings = f.recordings(200);
        await recordings.recover();
        const now = Date.now();
        const write = (t0: number) =>
          writeNoiseRecording(f.store, f.dir, {
            desktopId: f.a.id,
            ownerId: f.owner.id,
            t0,
            approxBytes: 50 * KiB,
          });
        const old = await write(now - 8 * DAY_MS);
        const recent = await write(now - 6 * DAY_MS);
        // Its files go first, then its row, then the audit entry (keeping.ts remove, then its
        // caller): wait for the last.
        await eventually('the old recording to go', () => f.audits.length > 0, 5_000);
        expect(goneFromDisk(f.dir, old.id)).toBe(true);
        expect((await f.store.recordings.list()).map((r) => r.id)).toEqual([recent.id]);
        expect(f.audits.map((e) => e.summary)).toEqual([
          `recording ${old.id} of desktop "Office PC"`,
        ]);
        // Closed, it runs no more.
        await recordings.close();
        const later = await write(now - 9 * DAY_MS);
        await sleep(600);
        expect(onDisk(f.dir, later.id)).toBe(true);
      } finally {
        await f.close();
      }
    });

    describe('through the API', () => {
      let bridge: TestBridge;
      let desktopId: string;
      afterAll(async () => {
        await bridge?.close();
      });

      it('admins read and change the limits (validated), which apply at once and are audited; the storage view adds it all up', async () => {
        bridge = await startTestBridge({ access: { databaseUrl: await backend.databaseUrl() } });
        desktopId = (await bridge.desktopControl.directory.cliDesktopId()) ?? '';
        const { store } = bridge.access;
        const session = bridge.session;

        const settings = await session.request('/api/settings/recording');
        expect(settings.status).toBe(200);
        expect(await settings.json()).toMatchObject({
          retention: {
            max_age_days: 30,
            max_total_bytes: 10 * 1024 * MiB,
            max_desktop_bytes: 2 * 1024 * MiB,
            min_free_bytes: 1024 * MiB,
          },
        });
        for (const retention of [
          { max_age_days: 0 },
          { max_total_bytes: 1000 },
          { max_desktop_bytes: 'lots' },
          { min_free_bytes: -5 },
          { forever: true },
        ]) {
          const res = await session.request('/api/settings/recording', {
            method: 'PUT',
            body: { retention },
          });
          expect(res.status, JSON.stringify(retention)).toBe(400);
        }

        // A member's desktop and recordings beside the admin's.
        await store.people.add({
          username: 'bea',
          displayName: 'Bea',
          passwordHash: await hashPassword(PASSWORD),
          role: 'member',
        });
        const bea = await store.people.byUsername('bea');
        const beaDesktop = await store.desktops.add({
          id: newId('dsk'),
          name: 'Bea’s laptop',
          kind: 'vnc',
          params: {},
          secret: null,
          ownerId: bea?.id ?? '',
        });
        const member = await signIn(bridge.url, 'bea', PASSWORD);
        for (const [path, method] of [
          ['/api/recordings/storage', 'GET'],
          ['/api/settings/recording', 'PUT'],
        ] as const) {
          const res = await member.request(path, method === 'PUT' ? { method, body: {} } : {});
          expect(res.status, `${method} ${path}`).toBe(403);
        }

        const now = Date.now();
        const write = (desktop: string, ownerId: string, t0: number) =>
          writeNoiseRecording(store, bridge.recordings.dir, {
            desktopId: desktop,
            ownerId,
            t0,
            approxBytes: 700 * KiB,
          });
        const first = await write(desktopId, bridge.admin.id, now - 5 * HOUR);
        const second = await write(beaDesktop.id, bea?.id ?? '', now - 4 * HOUR);
        const third = await write(desktopId, bridge.admin.id, now - 3 * HOUR);
        const fourth = await write(desktopId, bridge.admin.id, now - 2 * HOUR);
        const sizes = [first, second, third, fourth].map((r) => r.storedBytes);
        const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

        const view = await session.request('/api/recordings/storage');
        expect(view.status).toBe(200);
        expect(view.headers.get('cache-control')).toBe('no-store');
        const storage = (await view.json()) as Record<string, unknown>;
        expect(storage).toMatchObject({
          location: 'local',
          total_bytes: sum(sizes),
          count: 4,
          live_count: 0,
          held: null,
          oldest: {
            id: first.id,
            desktop: { id: desktopId, name: 'Desktop' },
            started_at: now - 5 * HOUR,
          },
          desktops: [
            {
              desktop: { id: desktopId, name: 'Desktop' },
              bytes: sizes[0]! + sizes[2]! + sizes[3]!,
              count: 3,
              live: 0,
              oldest_started_at: now - 5 * HOUR,
            },
            {
              desktop: { id: beaDesktop.id, name: 'Bea’s laptop' },
              bytes: sizes[1],
              count: 1,
              live: 0,
            },
          ],
          people: [
            {
              person: { id: bridge.admin.id, name: bridge.admin.displayName },
              bytes: sizes[0]! + sizes[2]! + sizes[3]!,
              count: 3,
            },
            { person: { id: bea?.id, name: 'Bea' }, bytes: sizes[1], count: 1 },
          ],
        });
        const disk = storage.disk as { free_bytes: number; size_bytes: number };
        expect(disk.size_bytes).toBeGreaterThan(disk.free_bytes);
        expect(disk.free_bytes).toBeGreaterThan(0);

        // Room for about two and a half: the two oldest go, whoever's they are, at once.
        const cap = Math.floor(sizes[3]! * 2.5);
        const put = await session.request('/api/settings/recording', {
          method: 'PUT',
          body: { retention: { max_total_bytes: cap, min_free_bytes: 0 } },
        });
        expect(put.status).toBe(200);
        expect(await put.json()).toMatchObject({
          retention: {
            max_age_days: 30,
            max_total_bytes: cap,
            max_desktop_bytes: 2 * 1024 * MiB,
            min_free_bytes: 0,
          },
        });
        expect((await store.recordings.list()).map((r) => r.id)).toEqual([fourth.id, third.id]);
        for (const gone of [first, second])
          expect(goneFromDisk(bridge.recordings.dir, gone.id)).toBe(true);
        for (const kept of [third, fourth])
          expect(onDisk(bridge.recordings.dir, kept.id)).toBe(true);

        await bridge.access.audit.flush();
        const entries = await store.audit.query({ limit: 50 });
        const deleted = entries.filter((e) =>
          e.detail?.startsWith('recording deleted by retention'),
        );
        expect(deleted.map((e) => [e.actor, e.summary]).reverse()).toEqual([
          ['system', `recording ${first.id} of desktop "Desktop"`],
          ['system', `recording ${second.id} of desktop "Bea’s laptop"`],
        ]);
        expect(
          entries.some(
            (e) => e.kind === 'settings_changed' && e.detail?.includes('max_total_bytes'),
          ),
        ).toBe(true);

        // No limits at all is the admin's to choose (the disk's free space is still kept).
        const none = await session.request('/api/settings/recording', {
          method: 'PUT',
          body: {
            retention: { max_age_days: null, max_total_bytes: null, max_desktop_bytes: null },
          },
        });
        expect(await none.json()).toMatchObject({
          retention: {
            max_age_days: null,
            max_total_bytes: null,
            max_desktop_bytes: null,
            min_free_bytes: 0,
          },
        });
        const after = (await (await session.request('/api/recordings/storage')).json()) as Record<
          string,
          unknown
        >;
        expect(after).toMatchObject({
          total_bytes: sizes[2]! + sizes[3]!,
          count: 2,
          oldest: { id: third.id },
        });
      });
    });

    describe('on a real desktop an AI keeps busy', () => {
      let path: DesktopPath | undefined;
      let bridge: TestBridge | undefined;
      let scroller: ChildProcess | undefined;
      let client: TunnelClient | undefined;
      const space: DiskSpace = { freeBytes: 50 * 1024 * MiB, sizeBytes: 100 * 1024 * MiB };
      afterAll(async () => {
        scroller?.kill();
        await client?.close().catch(() => undefined);
        await bridge?.close();
        await path?.stop();
      }, 60_000);

      it('rotates the recording as it grows and deletes the oldest parts, the window never waiting; holds it while the disk is nearly full', async () => {
        const started = await startDesktopPath('gateway-xvnc');
        if ('skip' in started) throw new Error(started.skip);
        path = started;
        bridge = await startTestBridge({
          access: { databaseUrl: await backend.databaseUrl() },
          desktop: { guacd: path.guacd, connection: path.connection },
          recording: {
            recordByDefault: true,
            // Growth, not the clock, is what must keep it in check here.
            retention: { intervalMs: 3_600_000, minPieceMs: 0 },
            diskSpace: () => Promise.resolve({ ...space }),
          },
        });
        const b = bridge;
        const desktopId = (await b.desktopControl.directory.cliDesktopId()) ?? '';
        const cap = 2 * MiB;
        const put = await b.session.request('/api/settings/recording', {
          method: 'PUT',
          body: { retention: { max_desktop_bytes: cap, max_total_bytes: 4 * MiB } },
        });
        expect(put.status).toBe(200);

        client = await TunnelClient.open(b.url, await b.session.ticket('tunnel'));
        await eventually(
          'the recording to start',
          () => b.recordings.liveOn(desktopId) !== undefined,
          20_000,
        );
        const firstId = b.recordings.liveOn(desktopId) ?? '';
        // The AI's busy desktop: a full-screen terminal scrolling random text.
        scroller = spawn(
          'xterm',
          [
            '-geometry',
            '160x50+0+0',
            '-e',
            'sh',
            '-c',
            'while :; do head -c 30000 /dev/urandom | base64 -w 150; done',
          ],
          { env: await path.xEnv(), stdio: 'ignore' },
        );

        /** What the desktop's recordings take now: finished ones as listed, the live one as written. */
        const desktopBytes = async () => {
          const live = b.recordings.liveBytes();
          const rows = (await b.access.store.recordings.list()).filter(
            (r) => r.desktopId === desktopId,
          );
          return rows.reduce((sum, r) => sum + (live.get(r.id) ?? r.storedBytes), 0);
        };
        let most = 0;
        const received: number[] = [];
        /** Per sample, whether the recording wrote more since the sample before. */
        const recorded: boolean[] = [];
        let lastLive: ReadonlyMap<string, number> = new Map();
        const deadline = Date.now() + 90_000;
        let deletions = 0;
        for (;;) {
          most = Math.max(most, await desktopBytes());
          received.push(client.instructions.length);
          const live = b.recordings.liveBytes();
          recorded.push([...live].some(([id, bytes]) => bytes > (lastLive.get(id) ?? 0)));
          lastLive = live;
          await b.access.audit.flush();
          deletions = (await b.access.store.audit.query({ limit: 500 })).filter((e) =>
            e.detail?.startsWith('recording deleted by retention'),
          ).length;
          if (deletions >= 3) break;
          if (Date.now() > deadline)
            throw new Error(
              `only ${deletions} deletions by retention in 90 s (the most: ${most} bytes)`,
            );
          await sleep(250);
        }
        // Near the cap all along: over it at most by what one step of growth and a rotation add.
        expect(most).toBeLessThan(cap + 1.5 * MiB);
        // The window got the picture all along: it never went without while the recording got
        // it (what a window waiting on the recording looks like). A sample where neither got
        // anything is the machine, not the recording: under full CPU load (busy loops on every
        // core) xterm and the gateway were starved for up to a second, and counting those
        // failed 2 runs in 10 though the recording had nothing to do with it.
        const stalls = received.filter(
          (n, i) => i > 0 && n === received[i - 1] && recorded[i] === true,
        ).length;
        expect(stalls, JSON.stringify({ received, recorded })).toBeLessThan(received.length / 4);
        expect(goneFromDisk(b.recordings.dir, firstId)).toBe(true);
        // The session goes on in the newest recording, which names the one before.
        const liveId = b.recordings.liveOn(desktopId) ?? '';
        expect(liveId).not.toBe(firstId);
        await sleep(500);
        const liveEvents = await (await RecordingReader.open(b.recordings.dir, liveId)).events();
        const rotated = liveEvents.find((e) => e.kind === 'recording.rotated');
        expect(rotated).toMatchObject({ kind: 'recording.rotated' });
        const previousId = rotated?.kind === 'recording.rotated' ? (rotated.previous ?? '') : '';
        if (onDisk(b.recordings.dir, previousId)) {
          // The piece before writes its end (naming the next) as it closes, which may come
          // after the new piece started: wait for it (CI once read its track before).
          const named = await eventually(
            'the piece before to name the next',
            async () => {
              if (!onDisk(b.recordings.dir, previousId)) return { next: liveId };
              const before = await (
                await RecordingReader.open(b.recordings.dir, previousId)
              ).events();
              return before.find((e) => e.kind === 'recording.rotated' && e.next !== undefined);
            },
            10_000,
          );
          expect(named).toMatchObject({ next: liveId });
        }

        // The disk nearly full while a rotation is under way: the new piece's row is being
        // written (the store's add held back here, as a slow PostgreSQL holds it), the piece
        // before is still the live one and is held, then the new one takes its place. The new
        // piece must start held too (it once started writing: the check ran before the store's
        // awaits and the hold came during them), and the held piece is no longer live once it
        // is replaced: no test may assume the recording live when the hold began stays live.
        const gate = holdBackRecordingAdds(b.access.store);
        await eventually('a rotation to be under way', () => gate.waiting, 20_000);
        const replacedId = b.recordings.liveOn(desktopId) ?? '';
        expect(b.recordings.liveBytes().has(replacedId)).toBe(true);
        // Limits raised first, so no rotation follows this one: what comes next stays in one piece.
        const raised = await b.session.request('/api/settings/recording', {
          method: 'PUT',
          body: { retention: { max_desktop_bytes: 512 * MiB, max_total_bytes: 1024 * MiB } },
        });
        expect(raised.status).toBe(200);
        space.freeBytes = 100 * MiB;
        expect((await b.recordings.enforceRetention()).held).toMatch(/nearly full/);
        await eventually(
          'the indicator to say recording stopped',
          () => b.recordings.indicator(desktopId, { inCharge: true }).stopped_reason !== null,
          10_000,
        );
        gate.open();
        await b.recordings.settled();
        const heldId = b.recordings.liveOn(desktopId) ?? '';
        expect(heldId).not.toBe(replacedId);
        expect(b.recordings.liveBytes().has(replacedId)).toBe(false);
        await eventually(
          'the new piece to say recording stopped (it starts held)',
          () => b.recordings.indicator(desktopId, { inCharge: true }).stopped_reason !== null,
          10_000,
        );
        expect(b.recordings.indicator(desktopId, { inCharge: true })).toMatchObject({
          on: true,
          stopped_reason: expect.stringMatching(
            /^the disk is nearly full \(100 MiB free; recordings keep 1 GiB free\)$/,
          ) as string,
        });
        expect(b.recordings.heldReason()).toMatch(/nearly full/);
        // The piece the rotation ended was held before its end: its gap is on its row.
        expect(
          (await b.access.store.recordings.byId(replacedId))?.gaps.map((g) => g.reason),
        ).toContain('the disk is nearly full (100 MiB free; recordings keep 1 GiB free)');
        await sleep(500);
        const heldAt = b.recordings.liveBytes().get(heldId);
        expect(heldAt).toBeTypeOf('number');
        const shownAt = client.instructions.length;
        await sleep(2_000);
        // Nothing more written (a gap), while the window still gets the picture; still the live one.
        expect(b.recordings.liveOn(desktopId)).toBe(heldId);
        expect(b.recordings.liveBytes().get(heldId)).toBe(heldAt);
        expect(client.instructions.length).toBeGreaterThan(shownAt);

        // Room again: it writes again, and the file names the gap.
        space.freeBytes = 50 * 1024 * MiB;
        await b.recordings.enforceRetention();
        await eventually(
          'the recording to resume',
          () => b.recordings.indicator(desktopId, { inCharge: true }).stopped_reason === null,
          10_000,
        );
        await eventually(
          'it to grow again',
          () => (b.recordings.liveBytes().get(heldId) ?? 0) > (heldAt ?? Infinity),
          10_000,
        );
        scroller.kill();
        await client.close();
        // Ending: the list keeps it live until its end and gaps are written (never an ended
        // recording without them, for a person or a test to read in between).
        for (let seen = true; seen;) {
          const res = await b.session.request('/api/recordings');
          const { recordings } = (await res.json()) as {
            recordings: { id: string; live: boolean; ended_at: number | null; gaps: unknown[] }[];
          };
          const row = recordings.find((r) => r.id === heldId);
          const whole = row?.live === true || (row?.ended_at != null && row.gaps.length > 0);
          expect(whole, JSON.stringify(row)).toBe(true);
          seen = row?.live === true;
        }
        await b.recordings.settled();
        const row = await b.access.store.recordings.byId(heldId);
        // Held from its first moment: the piece the rotation started while the disk was nearly
        // full wrote nothing of the picture before its gap (it once wrote until the next pass).
        expect(row?.gaps[0]).toMatchObject({
          from: row?.startedAt,
          reason: 'the disk is nearly full (100 MiB free; recordings keep 1 GiB free)',
        });
        const reader = await RecordingReader.open(b.recordings.dir, heldId);
        expect(reader.gaps.map((g) => g.reason)).toContain(
          'the disk is nearly full (100 MiB free; recordings keep 1 GiB free)',
        );
        // The event track says once that it stopped, and why (the writer writes it, at the
        // moment the gap starts; the bridge once wrote it a second time).
        const stops = (await reader.events()).filter((e) => e.kind === 'recording.stopped');
        expect(stops.map((e) => e.kind === 'recording.stopped' && e.reason)).toEqual([
          'the disk is nearly full (100 MiB free; recordings keep 1 GiB free)',
        ]);
      }, 180_000);
    });
  },
);

/**
 * The store's `recordings.add` held back until open(): a rotation's start waits there, as it does
 * on a slow PostgreSQL, so what happens meanwhile (a hold) meets it every time, not by chance.
 * The first add after this call waits; open() lets it through and restores the store's own add.
 */
function holdBackRecordingAdds(store: Store): { readonly waiting: boolean; open(): void } {
  const repo = store.recordings;
  const add = repo.add.bind(repo);
  let waiting = false;
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  repo.add = async (recording) => {
    waiting = true;
    await opened;
    return add(recording);
  };
  return {
    get waiting() {
      return waiting;
    },
    open() {
      repo.add = add;
      open();
    },
  };
}
