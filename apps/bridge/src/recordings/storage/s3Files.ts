// A recording's files in an S3-compatible bucket (the AWS SDK's S3 client): objects named
// `<prefix><id>.guac|.keys|.index.jsonl|.events.jsonl` — the recording's random id only, never
// a person's or a desktop's name. Written once, when the recording has ended (the spool in the
// data dir is moved here: spoolMover.ts), with multipart uploads for large files. Read with
// ranged GETs: the player's stream is one GET, the picture at a moment fetches the index and
// just one keyframe and the stretch after it (pictureRanges.ts) into a scratch folder laid out
// like the recordings folder (the picture file sparse: only the fetched stretch holds bytes),
// so the package's RecordingReader answers exactly as it does for a local recording. A video
// export fetches it whole into the scratch folder first. A recording moved under another prefix
// of the same bucket (the configuration changed since) is read and deleted through at(prefix),
// the same client. It also lists and aborts the multipart uploads under the prefix
// (abandonedUploads.ts decides which).
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  NoSuchKey,
  type GetObjectCommandOutput,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { RecordingReader, recordingPaths } from '@overlay-companion/recording';
import type { Logger } from 'pino';
import { StartupError } from '../../errors.js';
import { keyframesOf, pictureRanges, type ByteRange } from './pictureRanges.js';
import type { ReadNeed, RecordingFiles } from './recordingFiles.js';
import { describeS3Target, type S3Target } from './s3Config.js';

/** A store that does not answer a connection in this long is unreachable (the SDK has none). */
const CONNECT_TIMEOUT_MS = 5_000;
/** A request whose socket stays silent this long has failed. */
const IDLE_TIMEOUT_MS = 60_000;
/** Upload parts (S3's smallest is 5 MiB); files below one part go in a single PUT. */
const PART_BYTES = 8 * 1024 * 1024;

type Part = keyof ReturnType<typeof recordingPaths>;
const PARTS: readonly Part[] = ['recording', 'index', 'keys', 'events'];

export class S3Files implements RecordingFiles {
  readonly location = 's3' as const;

  private constructor(
    readonly target: S3Target,
    private readonly client: S3Client,
    /** Where scratch copies are made (inside the recordings folder: 0700, the spool's disk). */
    private readonly scratchRoot: string,
  ) {}

  /**
   * Connects and proves the bucket can be written and read back (a small probe object, then
   * deleted): a bridge whose recordings could not be stored must not start as if they could.
   */
  static async connect(target: S3Target, recordingsDir: string, logger: Logger): Promise<S3Files> {
    // The SDK warns on stderr, as plain text among the bridge's JSON log lines, that its releases
    // after January 2027 need Node 22: a note for whoever upgrades the dependency, not for the
    // operator reading the logs.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    const client = new S3Client({
      region: target.region,
      forcePathStyle: target.forcePathStyle,
      // A store that is not AWS: the SDK's default checksums on every request (since early 2025)
      // are headers many S3-compatible stores refuse; send them only where the API needs them.
      ...(target.endpoint === undefined
        ? {}
        : {
            endpoint: target.endpoint,
            requestChecksumCalculation: 'WHEN_REQUIRED' as const,
            responseChecksumValidation: 'WHEN_REQUIRED' as const,
          }),
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: IDLE_TIMEOUT_MS },
    });
    const files = new S3Files(target, client, join(recordingsDir, '.scratch'));
    try {
      await files.probe();
    } catch (err) {
      client.destroy();
      throw new StartupError(
        `Recordings cannot be kept on ${describeS3Target(target)}: ${reasonOf(err)}. Check the bucket exists, OC_S3_ENDPOINT, and that the AWS credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or a profile) may put, get and delete objects there.`,
      );
    }
    // Scratch copies a previous run left (it stopped mid-read) are of no use.
    await rm(files.scratchRoot, { recursive: true, force: true });
    logger.info({ s3: describeS3Target(target) }, 'recordings are kept on an S3 store');
    return files;
  }

  private async probe(): Promise<void> {
    const key = `${this.target.prefix}probe-${randomBytes(12).toString('base64url')}`;
    const body = 'overlay-companion write check';
    await this.client.send(
      new PutObjectCommand({ Bucket: this.target.bucket, Key: key, Body: body }),
    );
    const got = await this.client.send(
      new GetObjectCommand({ Bucket: this.target.bucket, Key: key }),
    );
    const text = await got.Body?.transformToString();
    await this.client.send(new DeleteObjectCommand({ Bucket: this.target.bucket, Key: key }));
    if (text !== body) throw new Error('an object written there read back different');
  }

  /** The same bucket and client, with the objects under `prefix` (a row's own). */
  at(prefix: string): S3Files {
    if (prefix === this.target.prefix) return this;
    return new S3Files({ ...this.target, prefix }, this.client, this.scratchRoot);
  }

  /** Whether the recording's objects are here (its index: every finished recording has one). */
  async has(id: string): Promise<boolean> {
    try {
      await this.client.send(
        new HeadObjectCommand({ Bucket: this.target.bucket, Key: this.key(id, 'index') }),
      );
      return true;
    } catch (err) {
      if (err instanceof NoSuchKey || statusOf(err) === 404) return false;
      throw err;
    }
  }

  /** The multipart uploads begun under the prefix and neither completed nor aborted. */
  async uploads(): Promise<{ key: string; uploadId: string; initiated: Date | undefined }[]> {
    const out: { key: string; uploadId: string; initiated: Date | undefined }[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      const page = await this.client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.target.bucket,
          Prefix: this.target.prefix,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const upload of page.Uploads ?? [])
        if (upload.Key !== undefined && upload.UploadId !== undefined)
          out.push({ key: upload.Key, uploadId: upload.UploadId, initiated: upload.Initiated });
      if (page.IsTruncated !== true) return out;
      keyMarker = page.NextKeyMarker;
      uploadIdMarker = page.NextUploadIdMarker;
      if (keyMarker === undefined && uploadIdMarker === undefined) return out;
    }
  }

  /** Aborts a multipart upload: its parts are deleted and stop being billed. */
  async abortUpload(key: string, uploadId: string): Promise<void> {
    await this.client.send(
      new AbortMultipartUploadCommand({ Bucket: this.target.bucket, Key: key, UploadId: uploadId }),
    );
  }

  /** The object key of one file of a recording (its name in the recordings folder). */
  key(id: string, part: Part): string {
    return `${this.target.prefix}${basename(recordingPaths('', id)[part])}`;
  }

  /** Every object key of a recording. */
  keys(id: string): string[] {
    return PARTS.map((part) => this.key(id, part));
  }

  /** Uploads the recording's files from `dir` (missing ones skipped). Returns the bytes stored. */
  async upload(dir: string, id: string): Promise<number> {
    const paths = recordingPaths(dir, id);
    let stored = 0;
    for (const part of PARTS) {
      const size = await stat(paths[part]).then(
        (s) => s.size,
        () => undefined,
      );
      if (size === undefined) continue;
      const upload = new Upload({
        client: this.client,
        partSize: PART_BYTES,
        queueSize: 2,
        // An upload that fails part-way is aborted (AbortMultipartUpload), so its parts are not
        // kept and billed in the bucket with nothing listing them. lib-storage's default today;
        // said here so an upgrade that changes it cannot (s3Reach.test.ts checks the abort).
        leavePartsOnError: false,
        params: {
          Bucket: this.target.bucket,
          Key: this.key(id, part),
          Body: createReadStream(paths[part]),
          ContentLength: size,
          ContentType: 'application/octet-stream',
        },
      });
      await upload.done();
      stored += size;
    }
    return stored;
  }

  async remove(id: string): Promise<void> {
    await Promise.all(
      this.keys(id).map((Key) =>
        this.client.send(new DeleteObjectCommand({ Bucket: this.target.bucket, Key })),
      ),
    );
  }

  async stream(
    id: string,
  ): Promise<{ body: ReadableStream<Uint8Array>; size: number } | undefined> {
    const got = await this.get(id, 'recording');
    if (got === undefined) return undefined;
    return { body: got.Body.transformToWebStream() as ReadableStream<Uint8Array>, size: got.size };
  }

  async read<T>(
    id: string,
    need: ReadNeed,
    use: (reader: RecordingReader) => Promise<T>,
  ): Promise<T | undefined> {
    await mkdir(this.scratchRoot, { recursive: true, mode: 0o700 });
    const scratch = await mkdtemp(join(this.scratchRoot, 'read-'));
    try {
      const paths = recordingPaths(scratch, id);
      const index = await this.get(id, 'index');
      if (index === undefined) return undefined;
      const indexText = await index.Body.transformToString();
      await writeFile(paths.index, indexText, { mode: 0o600 });
      if (need.kind === 'events') {
        await this.fetchPart(id, 'events', paths.events);
      } else if (need.kind === 'picture') {
        const ranges = pictureRanges(keyframesOf(indexText), need.t);
        if (ranges.keys !== undefined) await this.fetchPart(id, 'keys', paths.keys, ranges.keys);
        const { start, end } = ranges.recording;
        // An empty stretch (the picture is the keyframe's own): nothing to fetch.
        if (end !== undefined && end <= start)
          await writeFile(paths.recording, '', { mode: 0o600 });
        else await this.fetchPart(id, 'recording', paths.recording, ranges.recording);
        // A reference keyframe's draws, into the same file at their offsets.
        for (const draws of ranges.draws)
          await this.fetchPart(id, 'recording', paths.recording, draws, true);
      } else {
        for (const part of ['recording', 'keys', 'events'] as const)
          await this.fetchPart(id, part, paths[part]);
      }
      const reader = await RecordingReader.open(scratch, id).catch(() => undefined);
      return reader === undefined ? undefined : await use(reader);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /**
   * Writes one object (or the range of it) into `path` at the same byte offsets, so the file is
   * the object's own bytes where they were fetched and a hole elsewhere. Missing: no file.
   */
  private async fetchPart(
    id: string,
    part: Part,
    path: string,
    range?: ByteRange,
    more = false,
  ): Promise<void> {
    const got = await this.get(id, part, range);
    // The file exists even when nothing was fetched (a range past the end: no picture after
    // the keyframe), so the reader finds what it opens; `more` adds to what was fetched.
    const handle = await open(path, more ? 'r+' : 'w', 0o600);
    try {
      if (got === undefined) return;
      let position = range?.start ?? 0;
      for await (const chunk of got.Body as AsyncIterable<Uint8Array>) {
        await handle.write(chunk, 0, chunk.length, position);
        position += chunk.length;
      }
    } finally {
      await handle.close();
    }
  }

  /** GET of one object (a range of it); undefined when there is no such object. */
  private async get(
    id: string,
    part: Part,
    range?: ByteRange,
  ): Promise<{ Body: NonNullable<GetObjectCommandOutput['Body']>; size: number } | undefined> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({
          Bucket: this.target.bucket,
          Key: this.key(id, part),
          ...(range === undefined
            ? {}
            : { Range: `bytes=${range.start}-${range.end === undefined ? '' : range.end - 1}` }),
        }),
      );
      if (out.Body === undefined) return undefined;
      return { Body: out.Body, size: out.ContentLength ?? 0 };
    } catch (err) {
      if (err instanceof NoSuchKey || statusOf(err) === 404) return undefined;
      // A range past the end (a recording with no picture after its last keyframe).
      if (statusOf(err) === 416) return undefined;
      throw err;
    }
  }

  /** Closes the client (the one S3Files connect() made: its views from at() share it). */
  close(): void {
    this.client.destroy();
  }
}

function statusOf(err: unknown): number | undefined {
  return err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
}

/** Why a request failed, in words without anything secret (the SDK's messages carry none). */
function reasonOf(err: unknown): string {
  if (err instanceof S3ServiceException) {
    const status = err.$metadata.httpStatusCode;
    const message = err.message && err.message !== 'UnknownError' ? `: ${err.message}` : '';
    return `${err.name}${status === undefined ? '' : ` (HTTP ${status})`}${message}`;
  }
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code)
      ? `${code}: ${err.message}`
      : err.message;
  }
  return String(err);
}
