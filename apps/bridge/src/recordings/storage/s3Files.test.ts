// Recordings kept on an S3-compatible store. THE S3 EDGE IS A FAKE: s3rver (npm), a fake S3
// server keeping objects on disk, stands in for AWS S3 / MinIO (neither runs or is reachable on
// this machine); this is not verified against AWS or MinIO. Everything else is real: a real
// desktop through the embedded gateway (our gateway → Xvnc, changed from the X side with
// xsetroot), a real bridge with real sign-in over HTTP, the AWS SDK's S3 client.
//
// A recording made through the gateway ends up in the bucket (objects named by its random id
// only) and not on local disk; through the bridge's HTTP routes it replays (stream, events,
// the picture at every moment, the JSON-lines export) identical to the same files kept locally;
// a seek is a ranged read of one keyframe and the stretch after it; the video export works;
// another person cannot delete it, its owner can (every object gone); retention deletes its
// objects; a spool a killed bridge left is moved at the next start; a store that cannot be
// reached or written fails the start with a clear message; no credential reaches the logs.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { RecordingReader, recordingPaths } from '@overlay-companion/recording';
import pino from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../auth/passwords.js';
import { REPO, spawnCli } from '../../headless/testing/cliProcess.js';
import { silentLogger } from '../../logger.js';
import { startTestBridge, type TestBridge } from '../../mcp/testing/fixtures.js';
import { signIn, type BrowserSession } from '../../testing/browserSession.js';
import { startDesktopPath, type DesktopPath } from '../../testing/desktopPaths.js';
import { TunnelClient } from '../../testing/tunnelClient.js';
import { eventually } from '@overlay-companion/gateway/testing';
import { Recordings } from '../recordingLifecycle.js';
import { writeSampleRecording } from '../testing/sampleRecording.js';
import { DAY_MS } from '../retention.js';
import { parseS3Target, type S3Target } from './s3Config.js';
import { S3Files } from './s3Files.js';
import { startFakeS3, type FakeS3 } from './testing/fakeS3.js';
import { openSpoolStore } from './testing/spoolStore.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PASSWORD = 'another-password-0123456789';
const BUCKET = 'oc-recordings';
const PREFIX = 'team-a/';
const OBJECT = /^team-a\/[A-Za-z0-9_-]{22}\.(guac|keys|index\.jsonl|events\.jsonl)$/;
const COLOURS = ['#204080', '#306030', '#603030', '#808020', '#205050', '#502050'];

describe('recordings on an S3 store (s3rver, a fake S3 server)', () => {
  let s3: FakeS3;
  let target: S3Target;
  let client: S3Client;
  let path: DesktopPath;
  let bridge: TestBridge;
  let desktopId: string;
  let recordingId: string;
  let watcher: BrowserSession;
  let stranger: BrowserSession;
  /** When each colour was on screen (epoch ms), and which. */
  const shown: { t: number; rgb: [number, number, number] }[] = [];
  const logLines: string[] = [];

  const objects = async (): Promise<{ key: string; size: number }[]> => {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: PREFIX }));
    return (listed.Contents ?? []).map((o) => ({ key: o.Key ?? '', size: o.Size ?? 0 }));
  };
  const objectsOf = async (id: string) => (await objects()).filter((o) => o.key.includes(id));

  beforeAll(async () => {
    s3 = await startFakeS3(BUCKET);
    // The SDK's standard chain finds the credentials here, as it would on a server.
    process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
    target = parseS3Target(`s3://${BUCKET}/team-a`, { OC_S3_ENDPOINT: s3.endpoint }) as S3Target;
    client = new S3Client({ region: target.region, endpoint: s3.endpoint, forcePathStyle: true });

    const started = await startDesktopPath('gateway-xvnc');
    if ('skip' in started) throw new Error(started.skip);
    path = started;
    const capture = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    bridge = await startTestBridge({
      desktop: { guacd: path.guacd, connection: path.connection },
      logger: pino({ level: 'debug' }, capture),
      recording: {
        recordByDefault: true,
        // Keyframes often, so the recording has several to seek between.
        writer: { keyframeIntervalMs: 200, maxKeyframeIntervalMs: 300 },
        retention: { intervalMs: 3_600_000 },
        s3: target,
      },
    });
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

    // A person's window opens the desktop; the recording starts; the root changes colour.
    const xEnv = await path.xEnv();
    await run('xdotool', ['mousemove', '0', '0'], { env: await path.startSession() });
    const window = await TunnelClient.open(bridge.url, await bridge.session.ticket('tunnel'));
    await window.waitFor((i) => i.opcode === 'size' && i.args[0] === '0', {
      timeoutMs: 60_000,
      what: "the desktop's size",
    });
    await eventually(
      'the recording to start',
      () => bridge.recordings.liveOn(desktopId) !== undefined,
      20_000,
    );
    recordingId = bridge.recordings.liveOn(desktopId) ?? '';
    for (const colour of COLOURS) {
      await run('xsetroot', ['-solid', colour], { env: xEnv });
      await sleep(700);
      const rgb = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16)) as [
        number,
        number,
        number,
      ];
      shown.push({ t: Date.now() - 100, rgb });
    }
    await window.close();
    await eventually('the tunnel to end', () => bridge.tunnels.size === 0, 10_000);
    await bridge.recordings.settled();
    await bridge.recordings.moved();
  }, 180_000);

  afterAll(async () => {
    await bridge?.close();
    await path?.stop();
    client?.destroy();
    await s3?.stop();
  }, 60_000);

  it('puts a recording made through the gateway in the bucket, named by its id only, and not on local disk', async () => {
    const row = await bridge.access.store.recordings.byId(recordingId);
    expect(row).toMatchObject({ location: 's3' });
    const mine = await objectsOf(recordingId);
    expect(mine.map((o) => o.key).sort()).toEqual(
      ['events.jsonl', 'guac', 'index.jsonl', 'keys'].map(
        (ext) => `${PREFIX}${recordingId}.${ext}`,
      ),
    );
    for (const o of await objects()) expect(o.key).toMatch(OBJECT);
    expect(row?.storedBytes).toBe(mine.reduce((sum, o) => sum + o.size, 0));
    expect(row?.storedBytes).toBeGreaterThan(0);
    // Nothing of it is left in the spool.
    const local = await readdir(bridge.recordings.dir).catch(() => [] as string[]);
    expect(local.filter((name) => name.startsWith(recordingId))).toEqual([]);
    // A request that looked its row up before the move finished reads it from the bucket.
    const stale = bridge.recordings.files({ location: 'local' });
    const staleStream = await stale.stream(recordingId);
    await staleStream?.body.cancel();
    expect(staleStream?.size).toBe(row?.bytes);
    expect(
      await stale.read(recordingId, { kind: 'events' }, (reader) => Promise.resolve(reader.id)),
    ).toBe(recordingId);
    // The admins' storage view counts it where it is.
    const view = (await (await bridge.session.request('/api/recordings/storage')).json()) as {
      location: string;
      total_bytes: number;
    };
    expect(view).toMatchObject({ location: 's3', total_bytes: row?.storedBytes });
  });

  it('replays through the HTTP routes identical to the same recording kept locally', async () => {
    // The same files, fetched from the bucket into the recordings folder as a local recording.
    const localId = randomBytes(16).toString('base64url');
    const paths = recordingPaths(bridge.recordings.dir, localId);
    for (const [part, ext] of [
      ['recording', 'guac'],
      ['index', 'index.jsonl'],
      ['keys', 'keys'],
      ['events', 'events.jsonl'],
    ] as const) {
      const got = await client.send(
        new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${recordingId}.${ext}` }),
      );
      await writeFile(paths[part], await (got.Body?.transformToByteArray() ?? new Uint8Array()));
    }
    const { store } = bridge.access;
    const row = await store.recordings.byId(recordingId);
    await store.recordings.add({
      id: localId,
      desktopId,
      ownerId: row?.ownerId ?? null,
      startedAt: row?.startedAt ?? 0,
    });
    await store.recordings.update(localId, {
      endedAt: row?.endedAt ?? 0,
      bytes: row?.bytes ?? 0,
      gaps: row?.gaps ?? [],
    });
    try {
      const bytes = async (id: string, what: string) => {
        const res = await watcher.request(`/api/recordings/${id}/${what}`);
        expect(res.status, `${id} ${what}`).toBe(200);
        return Buffer.from(await res.arrayBuffer());
      };
      expect((await bytes(recordingId, 'stream')).equals(await bytes(localId, 'stream'))).toBe(
        true,
      );
      expect((await bytes(recordingId, 'stream')).length).toBe(row?.bytes);
      expect((await bytes(recordingId, 'events')).equals(await bytes(localId, 'events'))).toBe(
        true,
      );
      expect(
        (await bytes(recordingId, 'export.jsonl')).equals(await bytes(localId, 'export.jsonl')),
      ).toBe(true);

      // The picture at each colour's moment, between them, and at every keyframe.
      const keyframeTimes = (await readFile(paths.index, 'utf8'))
        .split('\n')
        .filter((l) => l.includes('"keyframe"'))
        .map((l) => (JSON.parse(l) as { t: number }).t);
      expect(keyframeTimes.length).toBeGreaterThanOrEqual(3);
      const moments = [
        ...shown.map((s) => s.t),
        ...shown.map((s) => s.t - 350),
        ...keyframeTimes,
        ...keyframeTimes.map((t) => t - 1),
        ...keyframeTimes.map((t) => t + 1),
      ];
      let pictures = 0;
      for (const t of moments) {
        const fromS3 = await watcher.request(`/api/recordings/${recordingId}/frame?t=${t}`);
        const fromDisk = await watcher.request(`/api/recordings/${localId}/frame?t=${t}`);
        // Before the first picture both say there is none.
        expect(fromS3.status, `the answer at ${t}`).toBe(fromDisk.status);
        const [a, b] = await Promise.all([fromS3.arrayBuffer(), fromDisk.arrayBuffer()]);
        if (fromS3.status !== 200) continue;
        pictures++;
        const [pa, pb] = await Promise.all(
          [a, b].map((png) => sharp(Buffer.from(png)).raw().toBuffer()),
        );
        expect(pa?.equals(pb ?? Buffer.alloc(0)), `the picture at ${t}`).toBe(true);
      }
      expect(pictures).toBeGreaterThan(moments.length / 2);
      // …and they are the desktop's: each colour at its moment (a corner the pointer is not in).
      for (const { t, rgb } of shown) {
        const png = await bytes(recordingId, `frame?t=${t}`);
        const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
        const o = (info.height - 1) * info.width * info.channels + (info.width - 1) * info.channels;
        expect([...data.subarray(o, o + 3)], `the colour at ${t}`).toEqual(rgb);
      }
    } finally {
      const copy = await store.recordings.byId(localId);
      if (copy !== undefined) await bridge.recordings.remove(copy);
    }
  });

  it('seeks with ranged reads: one keyframe (its PNGs, or the draws it names) and the stretch after it, not the whole recording', async () => {
    const sizes = new Map((await objectsOf(recordingId)).map((o) => [o.key, o.size]));
    const guac = `${PREFIX}${recordingId}.guac`;
    const keys = `${PREFIX}${recordingId}.keys`;
    const middle = shown[Math.floor(shown.length / 2)]?.t ?? 0;
    s3.log.length = 0;
    const res = await watcher.request(`/api/recordings/${recordingId}/frame?t=${middle}`);
    expect(res.status).toBe(200);
    const gets = s3.log.filter((r) => r.method === 'GET');
    const picture = gets.filter((r) => r.key === guac);
    const keyframe = gets.filter((r) => r.key === keys);
    // A reference keyframe (no mask was in force) is byte ranges of the picture file, no PNG.
    expect(picture.length).toBeGreaterThanOrEqual(1);
    expect(keyframe.length).toBeLessThanOrEqual(1);
    for (const get of picture) expect(get.range).toMatch(/^bytes=\d+-\d*$/);
    for (const get of keyframe) expect(get.range).toMatch(/^bytes=\d+-\d+$/);
    const fetched = picture.reduce((sum, get) => sum + (get.bytes ?? Infinity), 0);
    expect(fetched).toBeLessThan(sizes.get(guac) ?? 0);
    for (const get of keyframe) expect(get.bytes ?? Infinity).toBeLessThan(sizes.get(keys) ?? 0);
    // No other object but the index is read for a picture.
    const read = new Set([guac, keys, `${PREFIX}${recordingId}.index.jsonl`]);
    expect(gets.filter((r) => !read.has(r.key))).toEqual([]);
  });

  it('exports the video from the bucket', async () => {
    const res = await watcher.request(`/api/recordings/${recordingId}/export.webm`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/webm');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
    expect(bytes.length).toBeGreaterThan(1_000);
    // ffmpeg renders the whole recording: on a loaded CI machine that took over the default 30 s.
  }, 120_000);

  it('refuses deletion to another person; its owner deletes it, every object with it', async () => {
    const refused = await watcher.request(`/api/recordings/${recordingId}`, { method: 'DELETE' });
    expect(refused.status).toBe(403);
    const unseen = await stranger.request(`/api/recordings/${recordingId}`, { method: 'DELETE' });
    expect(unseen.status).toBe(404);
    expect(await objectsOf(recordingId)).toHaveLength(4);

    const deleted = await bridge.session.request(`/api/recordings/${recordingId}`, {
      method: 'DELETE',
    });
    expect(deleted.status).toBe(204);
    expect(await objectsOf(recordingId)).toEqual([]);
    expect(await bridge.access.store.recordings.byId(recordingId)).toBeUndefined();
    const stream = await bridge.session.request(`/api/recordings/${recordingId}/stream`);
    expect(stream.status).toBe(404);
  });

  it('retention deletes every object of a recording in the bucket', async () => {
    const { store } = bridge.access;
    const id = await writeSampleRecording(bridge, desktopId, Date.now() - 10_000);
    // The pass moves what the spool holds…
    await bridge.recordings.enforceRetention();
    await bridge.recordings.moved();
    expect(await objectsOf(id)).toHaveLength(4);
    expect(existsSync(recordingPaths(bridge.recordings.dir, id).recording)).toBe(false);
    // …and once it is past the age limit, deletes it there.
    await store.recordings.update(id, { endedAt: Date.now() - 40 * DAY_MS });
    const outcome = await bridge.recordings.enforceRetention();
    expect(outcome.removed.map((r) => r.id)).toEqual([id]);
    expect(await objectsOf(id)).toEqual([]);
    expect(await store.recordings.byId(id)).toBeUndefined();
  });

  it('keeps every credential out of the logs', async () => {
    await bridge.access.audit.flush();
    const text = logLines.join('');
    expect(text).toContain('recording moved to the S3 store');
    expect(text).not.toContain(s3.secretAccessKey);
    expect(text).not.toContain(s3.accessKeyId);
  });
});

describe('the S3 store at start (s3rver, a fake S3 server)', () => {
  let s3: FakeS3;
  let target: S3Target;
  beforeAll(async () => {
    s3 = await startFakeS3(BUCKET);
    process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
    target = parseS3Target(`s3://${BUCKET}/spool`, { OC_S3_ENDPOINT: s3.endpoint }) as S3Target;
  });
  afterAll(async () => {
    await s3?.stop();
  });

  it('moves the spool a killed bridge left to the bucket at the next start', async () => {
    const spool = await openSpoolStore('s3-spool');
    const { store, dir, owner, desktop } = spool;
    let recordings: Recordings | undefined;
    try {
      // What a killed bridge leaves: a row never closed, and files a writer was writing when
      // its process got SIGKILL.
      const { id, t0 } = await writeUntilKilled(dir);
      await store.recordings.add({ id, desktopId: desktop.id, ownerId: owner.id, startedAt: t0 });
      const spooled = await readdir(dir);
      // What its files say (as far as the disk got before the kill).
      const spool = await RecordingReader.open(dir, id);
      expect(spool.end).toBeGreaterThan(t0);
      const middle = (spool.start + spool.end) / 2;
      const before = await spool.pictureAt(middle);
      expect(before.width).toBe(64);

      recordings = new Recordings({
        store,
        dir,
        logger: silentLogger(),
        masks: () => Promise.resolve([]),
        s3: await S3Files.connect(target, dir, silentLogger()),
        retention: { intervalMs: 3_600_000 },
      });
      await recordings.recover();
      await recordings.moved();
      const row = await store.recordings.byId(id);
      expect(row).toMatchObject({ location: 's3' });
      expect(row?.endedAt).toBe(spool.end);
      const client = new S3Client({
        region: target.region,
        endpoint: s3.endpoint,
        forcePathStyle: true,
      });
      const listed = await client.send(
        new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'spool/' }),
      );
      client.destroy();
      expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual(
        spooled.map((name) => `spool/${name}`).sort(),
      );
      expect(row?.storedBytes).toBe((listed.Contents ?? []).reduce((s, o) => s + (o.Size ?? 0), 0));
      expect((await readdir(dir)).filter((name) => name.startsWith(id))).toEqual([]);
      // And it reads back from there, as it read in the spool.
      const picture = await recordings
        .files(row ?? { location: 'local' })
        .read(id, { kind: 'picture', t: middle }, (reader) => reader.pictureAt(middle));
      expect(picture?.rgba.equals(before.rgba)).toBe(true);
    } finally {
      await recordings?.close();
      await spool.close();
    }
  });

  it('uploads a large file in parts, byte for byte', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'oc-s3-large-'));
    const files = await S3Files.connect(target, dir, silentLogger());
    try {
      const id = randomBytes(16).toString('base64url');
      const paths = recordingPaths(dir, id);
      const large = randomBytes(19 * 1024 * 1024);
      await writeFile(paths.recording, large);
      await writeFile(paths.index, '');
      s3.log.length = 0;
      expect(await files.upload(dir, id)).toBe(large.length);
      // A multipart upload: several part PUTs of the picture file.
      const parts = s3.log.filter((r) => r.method === 'PUT' && r.query.includes('partNumber'));
      expect(parts.length).toBeGreaterThanOrEqual(3);
      const stream = await files.stream(id);
      expect(stream?.size).toBe(large.length);
      const back = Buffer.from(await new Response(stream?.body).arrayBuffer());
      expect(back.equals(large)).toBe(true);
      await files.remove(id);
      expect(await files.stream(id)).toBeUndefined();
    } finally {
      files.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails the start with a clear message when the store cannot be reached or written — no credential in it', async () => {
    const { createServer } = await import('node:net');
    // A port nothing listens on (taken, then freed).
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const unreachable = { ...target, endpoint: `http://127.0.0.1:${closed}` };
    const attempt = startTestBridge({ recording: { s3: unreachable } });
    await expect(attempt).rejects.toThrow(
      new RegExp(
        `^Recordings cannot be kept on s3://${BUCKET}/spool/ at http://127\\.0\\.0\\.1:${closed}: .*ECONNREFUSED`,
      ),
    );
    // The command itself: exit 1 with the message, before anything else starts.
    const dataDir = await mkdtemp(join(tmpdir(), 'oc-s3-cli-'));
    try {
      const serve = spawnCli(
        [
          'serve',
          '--vnc',
          '127.0.0.1:9',
          '--port',
          '0',
          '--data-dir',
          dataDir,
          '--recordings-s3',
          `s3://${BUCKET}/spool`,
        ],
        { OC_S3_ENDPOINT: unreachable.endpoint, OC_LOG_LEVEL: 'debug' },
      );
      expect((await serve.exited).code).toBe(1);
      expect(serve.stderr()).toContain(
        `Recordings cannot be kept on s3://${BUCKET}/spool/ at ${unreachable.endpoint}: connect ECONNREFUSED`,
      );
      expect(serve.stderr()).not.toContain(s3.secretAccessKey);
      expect(serve.stderr()).not.toContain('NodeVersionSupportWarning');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    const noBucket = startTestBridge({
      recording: { s3: { ...target, bucket: 'no-such-bucket' } },
    });
    await expect(noBucket).rejects.toThrow(/s3:\/\/no-such-bucket\/spool\/.*NoSuchBucket/);
    // Credentials the store does not know (the fake checks the key id, not a v4 signature).
    process.env.AWS_ACCESS_KEY_ID = 'OCUNKNOWNKEY4242';
    process.env.AWS_SECRET_ACCESS_KEY = 'oc-wrong-secret-4242';
    try {
      const refused = await startTestBridge({ recording: { s3: target } }).then(
        async (bridge) => {
          await bridge.close();
          return new Error('the bridge started');
        },
        (err: unknown) => err as Error,
      );
      const message = refused.message;
      expect(message).toMatch(/^Recordings cannot be kept on .*InvalidAccessKeyId \(HTTP 403\)/);
      expect(message).not.toContain('oc-wrong-secret-4242');
      expect(message).not.toContain(s3.secretAccessKey);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
    }
  });
});

/** Runs testing/writeUntilKilled.ts in a child process and kills it (SIGKILL) mid-recording. */
async function writeUntilKilled(dir: string): Promise<{ id: string; t0: number }> {
  const script = fileURLToPath(new URL('./testing/writeUntilKilled.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=overlay-source', script, dir],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  let out = '';
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    out += chunk.toString();
    if (out.includes('\n')) break;
  }
  child.kill('SIGKILL');
  await exited;
  const match = /^recording ([A-Za-z0-9_-]{22}) (\d+)\n/.exec(out);
  if (match === null) throw new Error(`the writer said: ${out}`);
  return { id: match[1] ?? '', t0: Number(match[2]) };
}
