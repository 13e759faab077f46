// What happens to recordings kept on an S3 store at the edges of its reach. THE S3 EDGE IS A
// FAKE: s3rver (npm), a fake S3 server, behind a proxy that can refuse chosen requests and
// answers AbortMultipartUpload (testing/fakeS3.ts); not verified against AWS or MinIO.
// Everything else is real: a real bridge with real sign-in over HTTP, SQLite, the AWS SDK.
//
// - A bridge started without --recordings-s3 meets recordings an earlier run moved to the
//   bucket: every route answers 503 saying to start it with --recordings-s3 (not a 404), the
//   list says so instead of offering them to play, an admin may remove one from the list (its
//   objects stay, and the audit says so; the other tests of s3Place.test.ts), and retention
//   neither deletes them nor counts them against the caps — while still deleting a local
//   recording past the limits.
// - A move that failed part-way leaves objects in the bucket while the row still says `local`:
//   retention deleting that recording deletes those objects too.
// - A multipart upload whose part is refused is aborted (no parts left behind).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { recordingPaths } from '@overlay-companion/recording';
import pino from 'pino';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../logger.js';
import { startTestBridge, type TestBridge } from '../../mcp/testing/fixtures.js';
import { Recordings } from '../recordingLifecycle.js';
import { DAY_MS } from '../retention.js';
import { writeNoiseRecording, writeSampleRecording } from '../testing/sampleRecording.js';
import { LocalFiles } from './localFiles.js';
import type { S3Target } from './s3Config.js';
import { S3Files } from './s3Files.js';
import { S3_NOT_CONFIGURED } from './unreachable.js';
import { fakeS3Access, startFakeS3, type FakeS3 } from './testing/fakeS3.js';
import { openSpoolStore } from './testing/spoolStore.js';

const BUCKET = 'oc-reach';

describe('recordings kept on S3 at the edges of its reach (s3rver, a fake S3 server)', () => {
  let s3: FakeS3;
  let target: S3Target;
  let client: S3Client;
  let scratch: string;
  let files: S3Files;

  const objectsOf = async (id: string): Promise<string[]> => {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    return (listed.Contents ?? []).map((o) => o.Key ?? '').filter((k) => k.includes(id));
  };

  beforeAll(async () => {
    s3 = await startFakeS3(BUCKET);
    ({ target, client } = fakeS3Access(s3, `s3://${BUCKET}/rec`));
    scratch = await mkdtemp(join(tmpdir(), 'oc-s3-reach-'));
    files = await S3Files.connect(target, scratch, silentLogger());
  });

  afterAll(async () => {
    files?.close();
    client?.destroy();
    await s3?.stop();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  describe('a bridge started without --recordings-s3', () => {
    let bridge: TestBridge;
    let desktopId: string;
    let onS3: string;
    const logLines: string[] = [];

    beforeAll(async () => {
      bridge = await startTestBridge({
        recording: { retention: { intervalMs: 3_600_000 } },
        logger: pino(
          { level: 'info' },
          new Writable({
            write(chunk: Buffer, _enc, done) {
              logLines.push(chunk.toString());
              done();
            },
          }),
        ),
      });
      desktopId = (await bridge.desktopControl.directory.cliDesktopId()) ?? '';
      // What an earlier run with --recordings-s3 left: the objects in the bucket, the row `s3`.
      onS3 = await writeSampleRecording(bridge, desktopId, Date.now() - 10_000);
      const storedBytes = await files.upload(bridge.recordings.dir, onS3);
      await new LocalFiles(bridge.recordings.dir).remove(onS3);
      await bridge.access.store.recordings.update(onS3, { location: 's3', storedBytes });
    });

    afterAll(async () => {
      await bridge?.close();
    });

    it('answers every read with a 503 that says to start it with --recordings-s3, not a 404', async () => {
      for (const path of ['stream', 'events', `frame?t=${Date.now() - 9_500}`, 'export.jsonl']) {
        const res = await bridge.session.request(`/api/recordings/${onS3}/${path}`);
        expect(res.status, path).toBe(503);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(await res.json(), path).toEqual({ error: S3_NOT_CONFIGURED });
      }
      const video = await bridge.session.request(`/api/recordings/${onS3}/export.webm`);
      expect(video.status).toBe(503);
      expect(await video.json()).toEqual({ error: S3_NOT_CONFIGURED });
      // The export lock is free again: the refusal did not leave it taken.
      const again = await bridge.session.request(`/api/recordings/${onS3}/export.webm`);
      expect(again.status).toBe(503);
      expect(S3_NOT_CONFIGURED).toContain('--recordings-s3');
    });

    it('lists it with why it cannot be played, and a local one without', async () => {
      const local = await writeSampleRecording(bridge, desktopId, Date.now() - 5_000);
      try {
        const res = await bridge.session.request('/api/recordings');
        const { recordings } = (await res.json()) as {
          recordings: { id: string; unavailable?: string }[];
        };
        expect(recordings.find((r) => r.id === onS3)?.unavailable).toBe(S3_NOT_CONFIGURED);
        const other = recordings.find((r) => r.id === local);
        expect(other).toBeDefined();
        expect(other).not.toHaveProperty('unavailable');
      } finally {
        const row = await bridge.access.store.recordings.byId(local);
        if (row !== undefined) await bridge.recordings.remove(row);
      }
    });

    it('an admin removes one from the list: its row goes, its objects stay (this bridge cannot reach them), and the audit says so', async () => {
      const { store } = bridge.access;
      const another = await writeSampleRecording(bridge, desktopId, Date.now() - 8_000);
      const storedBytes = await files.upload(bridge.recordings.dir, another);
      await new LocalFiles(bridge.recordings.dir).remove(another);
      await store.recordings.update(another, { location: 's3', storedBytes });
      const res = await bridge.session.request(`/api/recordings/${another}`, { method: 'DELETE' });
      expect(res.status).toBe(204);
      expect(await store.recordings.byId(another)).toBeUndefined();
      expect(await objectsOf(another)).toHaveLength(4);
      await bridge.access.audit.flush();
      const entry = (await store.audit.query({ limit: 20 })).find(
        (e) => e.kind === 'recording_deleted' && e.summary?.includes(another),
      );
      expect(entry?.detail).toMatch(/removed from the list; its objects were not deleted/);
    });

    it('retention neither deletes it nor counts it, and still deletes a local one past the limits', async () => {
      const { store } = bridge.access;
      const oldLocal = await writeSampleRecording(bridge, desktopId, Date.now() - 41 * DAY_MS);
      await store.recordings.update(oldLocal, { endedAt: Date.now() - 41 * DAY_MS });
      await store.recordings.update(onS3, { endedAt: Date.now() - 40 * DAY_MS });
      const outcome = await bridge.recordings.enforceRetention();
      expect(outcome.removed.map((r) => r.id)).toEqual([oldLocal]);
      expect(await store.recordings.byId(oldLocal)).toBeUndefined();
      expect(await store.recordings.byId(onS3)).toMatchObject({ location: 's3' });
      expect(await objectsOf(onS3)).toHaveLength(4);
      // Nor does it count against a cap: a tiny total cap keeps a fresh local recording.
      const fresh = await writeSampleRecording(bridge, desktopId, Date.now() - 2_000);
      const freshBytes = (await store.recordings.byId(fresh))?.bytes ?? 0;
      await store.recordings.update(fresh, { storedBytes: freshBytes });
      await store.recordings.update(onS3, { storedBytes: 1024 * 1024 * 1024 });
      const res = await bridge.session.request('/api/settings/recording', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ retention: { max_total_bytes: 1024 * 1024 } }),
      });
      expect(res.status).toBe(200);
      const capped = await bridge.recordings.enforceRetention();
      expect(capped.removed).toEqual([]);
      expect(await store.recordings.byId(fresh)).toBeDefined();
    });

    it('says at start that recordings on an S3 store are out of its reach', async () => {
      await bridge.recordings.recover();
      expect(logLines.join('')).toContain(
        'recordings kept on an S3 store cannot be played, exported or deleted',
      );
    });
  });

  it('retention deletes the objects a move that failed part-way left, the row still local', async () => {
    const spool = await openSpoolStore('s3-partial');
    const { store, dir, owner, desktop } = spool;
    let recordings: Recordings | undefined;
    try {
      const { id } = await writeNoiseRecording(store, dir, {
        desktopId: desktop.id,
        ownerId: owner.id,
        t0: Date.now() - 40 * DAY_MS,
        approxBytes: 64 * 1024,
      });
      // The bucket refuses the index (a policy, a full quota): every move of it fails after the
      // picture file went up.
      s3.refuse = (r) => r.method === 'PUT' && r.key.endsWith(`${id}.index.jsonl`);
      recordings = new Recordings({
        store,
        dir,
        logger: silentLogger(),
        masks: () => Promise.resolve([]),
        s3: await S3Files.connect(target, dir, silentLogger()),
        retention: { intervalMs: 3_600_000 },
      });
      // The row is new (ended now) for this pass: the move is tried, and fails part-way.
      await store.recordings.update(id, { endedAt: Date.now() });
      await recordings.enforceRetention();
      await recordings.moved();
      expect(await store.recordings.byId(id)).toMatchObject({ location: 'local' });
      expect(await objectsOf(id)).toEqual([`rec/${id}.guac`]);
      // Past the age limit now: retention deletes it — the stray object with it.
      await store.recordings.update(id, { endedAt: Date.now() - 40 * DAY_MS });
      const outcome = await recordings.enforceRetention();
      expect(outcome.removed.map((r) => r.id)).toEqual([id]);
      expect(await store.recordings.byId(id)).toBeUndefined();
      expect(existsSync(recordingPaths(dir, id).recording)).toBe(false);
      expect(await objectsOf(id)).toEqual([]);
    } finally {
      s3.refuse = undefined;
      await recordings?.close();
      await spool.close();
    }
  });

  it('aborts a multipart upload whose part is refused: no parts are left behind', async () => {
    const id = randomBytes(16).toString('base64url');
    const paths = recordingPaths(scratch, id);
    await writeFile(paths.recording, randomBytes(19 * 1024 * 1024));
    s3.log.length = 0;
    s3.refuse = (r) => r.method === 'PUT' && /(^|&)partNumber=2(&|$)/.test(r.query);
    try {
      await expect(files.upload(scratch, id)).rejects.toThrow(/Access Denied|AccessDenied/);
    } finally {
      s3.refuse = undefined;
    }
    const started = s3.log.find((r) => r.method === 'POST' && /(^|&)uploads/.test(r.query));
    expect(started).toBeDefined();
    const uploadId = /uploadId=([^&]+)/.exec(
      s3.log.find((r) => r.method === 'PUT' && r.query.includes('uploadId='))?.query ?? '',
    )?.[1];
    expect(uploadId).toBeDefined();
    const aborts = s3.log.filter(
      (r) => r.method === 'DELETE' && r.query.includes(`uploadId=${uploadId ?? '-'}`),
    );
    expect(aborts).toHaveLength(1);
    expect(aborts[0]?.key).toBe(`rec/${id}.guac`);
    expect(await objectsOf(id)).toEqual([]);
  });
});
