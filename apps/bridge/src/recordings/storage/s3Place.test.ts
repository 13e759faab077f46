// Each recording on an S3 store remembers where it lives (bucket and key prefix, migration
// 0009), so changing --recordings-s3 neither orphans nor misreads the recordings moved before:
// one under another prefix of the same bucket is read, counted and deleted there; one in a
// bucket this bridge is not configured for is listed as unavailable saying where it is (to
// admins; to others only that an admin can help), refused to readers with that, left alone by
// retention, and removed from the list by an admin only (its objects stay where they are,
// which the audit says); rows an older bridge moved without saying where are filled in at
// start when the objects are under the configured prefix.
// THE S3 EDGE IS A FAKE: s3rver (npm), a fake S3 server (testing/fakeS3.ts); not verified against
// AWS or MinIO. Real: a bridge with real sign-in over HTTP, SQLite, the AWS SDK.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../auth/passwords.js';
import { silentLogger } from '../../logger.js';
import { startTestBridge, type TestBridge } from '../../mcp/testing/fixtures.js';
import { newId } from '../../store/ids.js';
import { signIn, type BrowserSession } from '../../testing/browserSession.js';
import { Recordings } from '../recordingLifecycle.js';
import { DAY_MS } from '../retention.js';
import { writeNoiseRecording, writeSampleRecording } from '../testing/sampleRecording.js';
import { LocalFiles } from './localFiles.js';
import { parseS3Target, type S3Target } from './s3Config.js';
import { S3Files } from './s3Files.js';
import { startFakeS3, type FakeS3 } from './testing/fakeS3.js';
import { UNREACHABLE_FOR_MEMBERS } from './unreachable.js';
import { openSpoolStore } from './testing/spoolStore.js';

const BUCKET = 'oc-place';
const PASSWORD = 'another-password-0123456789';

describe('where a recording on S3 lives (s3rver, a fake S3 server)', () => {
  let s3: FakeS3;
  let client: S3Client;
  let before: S3Target;
  let now: S3Target;
  let scratch: string;
  let beforeFiles: S3Files;
  let bridge: TestBridge;
  let desktopId: string;
  let beaDesktopId: string;
  let bea: BrowserSession;

  const target = (url: string) => parseS3Target(url, { OC_S3_ENDPOINT: s3.endpoint }) as S3Target;
  const keysOf = async (prefix: string, id: string): Promise<string[]> => {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
    return (listed.Contents ?? []).map((o) => o.Key ?? '').filter((k) => k.includes(id));
  };
  /** A recording an earlier configuration moved to `files`: its objects there, its row saying so. */
  const movedBefore = async (
    forDesktop: string,
    files: S3Files | undefined,
    place: { s3Bucket: string | null; s3Prefix: string | null },
    t0 = Date.now() - 60_000,
  ): Promise<string> => {
    const id = await writeSampleRecording(bridge, forDesktop, t0);
    const storedBytes = files === undefined ? 1234 : await files.upload(bridge.recordings.dir, id);
    await new LocalFiles(bridge.recordings.dir).remove(id);
    await bridge.access.store.recordings.update(id, { location: 's3', storedBytes, ...place });
    return id;
  };
  const list = async (session: BrowserSession = bridge.session) =>
    (
      (await (await session.request('/api/recordings')).json()) as {
        recordings: { id: string; unavailable?: string; live: boolean }[];
      }
    ).recordings;

  beforeAll(async () => {
    s3 = await startFakeS3(BUCKET);
    process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
    client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true });
    before = target(`s3://${BUCKET}/team-a/old`);
    now = target(`s3://${BUCKET}/team-a/new`);
    scratch = await mkdtemp(join(tmpdir(), 'oc-s3-place-'));
    beforeFiles = await S3Files.connect(before, scratch, silentLogger());
    bridge = await startTestBridge({
      recording: { retention: { intervalMs: 3_600_000 }, s3: now },
    });
    desktopId = (await bridge.desktopControl.directory.cliDesktopId()) ?? '';
    const { store } = bridge.access;
    const person = await store.people.add({
      username: 'bea',
      displayName: 'Bea',
      passwordHash: await hashPassword(PASSWORD),
      role: 'member',
    });
    beaDesktopId = (
      await store.desktops.add({
        id: newId('dsk'),
        name: 'Bea’s laptop',
        kind: 'vnc',
        params: {},
        secret: null,
        ownerId: person.id,
      })
    ).id;
    bea = await signIn(bridge.url, 'bea', PASSWORD);
  });

  afterAll(async () => {
    await bridge?.close();
    beforeFiles?.close();
    client?.destroy();
    await s3?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it('a move records the bucket and prefix on the row', async () => {
    const id = await writeSampleRecording(bridge, desktopId, Date.now() - 30_000);
    await bridge.recordings.enforceRetention();
    await bridge.recordings.moved();
    expect(await bridge.access.store.recordings.byId(id)).toMatchObject({
      location: 's3',
      s3Bucket: BUCKET,
      s3Prefix: 'team-a/new/',
    });
    expect(await keysOf('team-a/new/', id)).toHaveLength(4);
  });

  it('one moved under the prefix configured before is read, counted and deleted there', async () => {
    const id = await movedBefore(desktopId, beforeFiles, {
      s3Bucket: BUCKET,
      s3Prefix: 'team-a/old/',
    });
    const listed = (await list()).find((r) => r.id === id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('unavailable');
    const res = await bridge.session.request(`/api/recordings/${id}/stream`);
    expect(res.status).toBe(200);
    const object = await client.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: `team-a/old/${id}.guac` }),
    );
    expect(Buffer.from(await res.arrayBuffer())).toEqual(
      Buffer.from((await object.Body?.transformToByteArray()) ?? []),
    );
    const events = await bridge.session.request(`/api/recordings/${id}/events`);
    expect(events.status).toBe(200);
    // Retention counts it (a tiny total cap would delete it — here, past the age limit, it goes).
    await bridge.access.store.recordings.update(id, { endedAt: Date.now() - 40 * DAY_MS });
    const outcome = await bridge.recordings.enforceRetention();
    expect(outcome.removed.map((r) => r.id)).toEqual([id]);
    expect(await keysOf('team-a/old/', id)).toEqual([]);
    expect(await bridge.access.store.recordings.byId(id)).toBeUndefined();
  });

  it('the owner deletes one under the earlier prefix: every object there goes', async () => {
    const id = await movedBefore(beaDesktopId, beforeFiles, {
      s3Bucket: BUCKET,
      s3Prefix: 'team-a/old/',
    });
    expect(await keysOf('team-a/old/', id)).toHaveLength(4);
    const res = await bea.request(`/api/recordings/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await keysOf('team-a/old/', id)).toEqual([]);
  });

  it('one in a bucket this bridge is not configured for: listed unavailable saying where, refused to readers, left by retention; an admin removes it from the list, its owner cannot', async () => {
    const { store } = bridge.access;
    const id = await movedBefore(
      beaDesktopId,
      undefined,
      { s3Bucket: 'oc-elsewhere', s3Prefix: 'team-b/' },
      Date.now() - 40 * DAY_MS,
    );
    await store.recordings.update(id, { endedAt: Date.now() - 40 * DAY_MS });
    // An admin is told where it is and what to do; its owner that an admin can help (the S3
    // store's bucket and prefix are the admins' to know).
    const forAdmin = (await list()).find((r) => r.id === id)?.unavailable;
    expect(forAdmin).toContain('s3://oc-elsewhere/team-b/');
    expect(forAdmin).toMatch(/not configured/);
    const forOwner = (await list(bea)).find((r) => r.id === id)?.unavailable;
    expect(forOwner).toBe(UNREACHABLE_FOR_MEMBERS);
    expect(forOwner).not.toContain('oc-elsewhere');
    for (const path of [
      'stream',
      'events',
      'export.jsonl',
      'export.webm',
      `frame?t=${Date.now()}`,
    ]) {
      for (const [session, error] of [
        [bea, UNREACHABLE_FOR_MEMBERS],
        [bridge.session, forAdmin],
      ] as const) {
        const res = await session.request(`/api/recordings/${id}/${path}`);
        expect(res.status, path).toBe(503);
        expect(res.headers.get('cache-control'), path).toBe('no-store');
        expect(((await res.json()) as { error: string }).error, path).toBe(error);
      }
    }
    // Past the age limit, yet retention cannot delete its objects: it leaves it (and the row).
    const outcome = await bridge.recordings.enforceRetention();
    expect(outcome.removed.map((r) => r.id)).not.toContain(id);
    expect(await store.recordings.byId(id)).toBeDefined();
    // Its owner may not drop it from the list (its objects would be left with nothing to list
    // them, which is an admin's call); an admin may, and the audit says where the objects stay.
    const refused = await bea.request(`/api/recordings/${id}`, { method: 'DELETE' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toMatch(/admin/);
    expect(await store.recordings.byId(id)).toBeDefined();
    const removed = await bridge.session.request(`/api/recordings/${id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(await store.recordings.byId(id)).toBeUndefined();
    expect((await list()).map((r) => r.id)).not.toContain(id);
    await bridge.access.audit.flush();
    const entry = (await store.audit.query({ limit: 20 })).find(
      (e) => e.kind === 'recording_deleted' && e.summary?.includes(id),
    );
    expect(entry?.detail).toContain('s3://oc-elsewhere/team-b/');
  });

  it('at start, rows moved before bucket and prefix were recorded: found under the configured prefix, they are filled in; not found, they are unavailable', async () => {
    const spool = await openSpoolStore('s3-place');
    const { store, dir, owner, desktop } = spool;
    let recordings: Recordings | undefined;
    try {
      const files = await S3Files.connect(now, dir, silentLogger());
      const write = async () => {
        const { id } = await writeNoiseRecording(store, dir, {
          desktopId: desktop.id,
          ownerId: owner.id,
          t0: Date.now() - 60_000,
          approxBytes: 16 * 1024,
        });
        return id;
      };
      const here = await write();
      const storedBytes = await files.upload(dir, here);
      const lost = await write();
      for (const id of [here, lost]) {
        await new LocalFiles(dir).remove(id);
        await store.recordings.update(id, { location: 's3', storedBytes });
      }
      recordings = new Recordings({
        store,
        dir,
        logger: silentLogger(),
        masks: () => Promise.resolve([]),
        s3: files,
        retention: { intervalMs: 3_600_000 },
      });
      await recordings.recover();
      expect(await store.recordings.byId(here)).toMatchObject({
        s3Bucket: BUCKET,
        s3Prefix: 'team-a/new/',
      });
      const lostRow = await store.recordings.byId(lost);
      expect(lostRow).toMatchObject({ s3Bucket: null, s3Prefix: null });
      expect(recordings.unreachable(lostRow ?? { location: 's3' })).toMatch(
        /not found under s3:\/\/oc-place\/team-a\/new\//,
      );
      const hereRow = await store.recordings.byId(here);
      expect(hereRow).toBeDefined();
      expect(recordings.unreachable(hereRow ?? { location: 's3' })).toBeUndefined();
    } finally {
      await recordings?.close();
      await spool.close();
    }
  });
});
