// Multipart uploads a killed bridge left in the bucket are aborted — at start and at each
// retention pass — and only those: not one of a recording another bridge of the site is still
// writing or has not finished moving, not a young one, not one outside our prefix or not named
// as a recording's file — nor this bridge's own move under way for longer than the age (a slow
// uplink), even once another bridge deleted its row (the move then deletes what it uploaded). THE S3 EDGE IS A FAKE: s3rver (npm) behind a proxy that keeps and
// lists multipart uploads, which s3rver cannot (testing/fakeS3.ts); not verified against AWS or
// MinIO. Real: the store (SQLite), Recordings, the AWS SDK's requests. An upload's age is its
// Initiated date as the store lists it: the test backdates the fake's record, not a clock.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import {
  CreateMultipartUploadCommand,
  ListObjectsV2Command,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { recordingPaths } from '@overlay-companion/recording';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../logger.js';
import { Recordings } from '../recordingLifecycle.js';
import { writeNoiseRecording } from '../testing/sampleRecording.js';
import { ABANDONED_UPLOAD_AGE_MS } from './abandonedUploads.js';
import type { S3Target } from './s3Config.js';
import { S3Files } from './s3Files.js';
import { fakeS3Access, startFakeS3, type FakeS3 } from './testing/fakeS3.js';
import { openSpoolStore, type SpoolStore } from './testing/spoolStore.js';

const BUCKET = 'oc-parts';
const newRecordingId = () => randomBytes(16).toString('base64url');

describe('abandoned multipart uploads (s3rver, a fake S3 server)', () => {
  let s3: FakeS3;
  let target: S3Target;
  let client: S3Client;
  let spool: SpoolStore;
  let recordings: Recordings | undefined;

  /** Begins a multipart upload of `key` with one part, as a bridge moving a file does. */
  const begin = async (key: string): Promise<string> => {
    const started = await client.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }),
    );
    const uploadId = started.UploadId ?? '';
    await client.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: uploadId,
        PartNumber: 1,
        Body: randomBytes(64 * 1024),
      }),
    );
    return uploadId;
  };
  /** Makes the fake list the upload as begun this long before now. */
  const backdate = (key: string, byMs: number) => {
    const upload = s3.uploads.find((u) => u.key === key);
    if (upload === undefined) throw new Error(`no upload of ${key}`);
    upload.initiated = new Date(Date.now() - byMs);
  };
  const open = () => s3.uploads.map((u) => u.key).sort();
  const aborted = () =>
    s3.log
      .filter((r) => r.method === 'DELETE' && /(^|&)uploadId=/.test(r.query))
      .map((r) => r.key)
      .sort();
  const OLD = ABANDONED_UPLOAD_AGE_MS + 60_000;

  beforeAll(async () => {
    s3 = await startFakeS3(BUCKET);
    ({ target, client } = fakeS3Access(s3, `s3://${BUCKET}/rec`));
    spool = await openSpoolStore('s3-parts');
  });

  afterAll(async () => {
    await recordings?.close();
    client?.destroy();
    await spool?.close();
    await s3?.stop();
  });

  it('at start: aborts the old uploads no recording may still own, and only those', async () => {
    const { store, owner, desktop } = spool;
    const row = async (id: string) =>
      store.recordings.add({ id, desktopId: desktop.id, ownerId: owner.id, startedAt: Date.now() });
    // Another bridge of the site is writing this one (its files are in its own data dir).
    const writing = newRecordingId();
    await row(writing);
    // Another bridge has ended this one and is moving it to the bucket.
    const moving = newRecordingId();
    await row(moving);
    await store.recordings.update(moving, { endedAt: Date.now() });
    // Moved (by a later try): the upload an earlier, killed try began is left over.
    const moved = newRecordingId();
    await row(moved);
    await store.recordings.update(moved, { endedAt: Date.now(), location: 's3' });
    // No row any more (deleted while its move was cut short).
    const gone = newRecordingId();
    // Begun a minute ago by a bridge that has not written its row yet (or an older bridge).
    const young = newRecordingId();

    const keys = {
      writing: `rec/${writing}.guac`,
      moving: `rec/${moving}.guac`,
      moved: `rec/${moved}.guac`,
      gone: `rec/${gone}.keys`,
      young: `rec/${young}.guac`,
      notOurs: 'rec/notes/something-else.bin',
      otherPrefix: `other/${gone}.guac`,
    };
    for (const key of Object.values(keys)) await begin(key);
    for (const [what, key] of Object.entries(keys)) backdate(key, what === 'young' ? 60_000 : OLD);
    s3.log.length = 0;

    recordings = new Recordings({
      store,
      dir: spool.dir,
      logger: silentLogger(),
      masks: () => Promise.resolve([]),
      s3: await S3Files.connect(target, spool.dir, silentLogger()),
      retention: { intervalMs: 3_600_000 },
    });
    await recordings.recover();
    await recordings.moved();

    expect(aborted()).toEqual([keys.gone, keys.moved].sort());
    expect(open()).toEqual(
      [keys.writing, keys.moving, keys.young, keys.notOurs, keys.otherPrefix].sort(),
    );
    // The other bridge's rows are its own: this bridge neither closed the one being written nor
    // marked the one being moved as moved (its files are not in this spool).
    expect(await store.recordings.byId(writing)).toMatchObject({
      endedAt: null,
      location: 'local',
    });
    expect(await store.recordings.byId(moving)).toMatchObject({ location: 'local' });
  });

  it('at a retention pass: an upload left since start is aborted once it is old enough', async () => {
    const r = recordings as Recordings;
    const { store, dir, owner, desktop } = spool;
    const left = `rec/${newRecordingId()}.index.jsonl`;
    await begin(left);
    s3.log.length = 0;
    await r.enforceRetention();
    expect(aborted()).toEqual([]);
    expect(open()).toContain(left);
    backdate(left, OLD);
    // A recording of this bridge ended and being moved meanwhile is not touched: its own move
    // completes (and its row then says where it is).
    const mine = await writeNoiseRecording(store, dir, {
      desktopId: desktop.id,
      ownerId: owner.id,
      t0: Date.now() - 120_000,
      approxBytes: 32 * 1024,
    });
    await r.enforceRetention();
    await r.moved();
    expect(aborted()).toEqual([left]);
    expect(open()).not.toContain(left);
    expect(await store.recordings.byId(mine.id)).toMatchObject({ location: 's3' });
    expect(existsSync(recordingPaths(dir, mine.id).recording)).toBe(false);
  });

  it('a move under way for longer than the age (a slow uplink) is not aborted — while its row says it is not moved yet, nor once its row is deleted on another bridge of the site; the move then deletes what it uploaded', async () => {
    const r = recordings as Recordings;
    const { store, dir, owner, desktop } = spool;
    // The picture's second part waits (a slow uplink) until the test lets it through.
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached = (): void => undefined;
    const partTwo = new Promise<void>((resolve) => (reached = resolve));
    s3.hold = (req) => {
      if (req.method !== 'PUT' || !/(^|&)partNumber=2(&|$)/.test(req.query)) return undefined;
      reached();
      return released;
    };
    try {
      const big = await writeNoiseRecording(store, dir, {
        desktopId: desktop.id,
        ownerId: owner.id,
        t0: Date.now() - 120_000,
        approxBytes: 32 * 1024,
      });
      // Its picture file over one part (8 MiB), so it goes up in parts (the move reads bytes only).
      await writeFile(recordingPaths(dir, big.id).recording, randomBytes(19 * 1024 * 1024));
      const key = `rec/${big.id}.guac`;
      await r.enforceRetention(); // queues its move
      await partTwo;
      // Begun longer ago than the age: only its move being under way says it is not abandoned.
      backdate(key, OLD);
      s3.log.length = 0;
      await r.enforceRetention();
      expect(aborted()).toEqual([]);
      expect(open()).toContain(key);
      // Another bridge of the site (sharing the store) deletes its row meanwhile.
      await store.recordings.remove(big.id);
      await r.enforceRetention();
      expect(aborted()).toEqual([]);
      expect(open()).toContain(key);

      release();
      await r.moved();
      // The move found no row: what it uploaded is deleted, nothing is left anywhere.
      expect(open()).not.toContain(key);
      const listed = await client.send(
        new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `rec/${big.id}` }),
      );
      expect(listed.Contents ?? []).toEqual([]);
      expect(existsSync(recordingPaths(dir, big.id).recording)).toBe(false);
    } finally {
      s3.hold = undefined;
      release();
    }
  });

  it('a store that refuses the listing: retention goes on, and the warning is said once', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const refusing = new Recordings({
      store: spool.store,
      dir: spool.dir,
      logger,
      masks: () => Promise.resolve([]),
      s3: await S3Files.connect(target, spool.dir, silentLogger()),
      retention: { intervalMs: 3_600_000 },
    });
    s3.refuse = (r) => r.method === 'GET' && /(^|&)uploads(=|&|$)/.test(r.query);
    try {
      await refusing.recover();
      await refusing.enforceRetention();
      await refusing.enforceRetention();
      const said = lines
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .filter((l) =>
          l.msg.startsWith('multipart uploads left in the S3 store could not be listed'),
        );
      expect(said.map((l) => l.level)).toEqual([40, 20, 20, 20]);
    } finally {
      s3.refuse = undefined;
      await refusing.close();
    }
  });
});
