// Test support — A FAKE S3 SERVER: s3rver (npm), an S3-compatible server that keeps objects on
// disk, stands in for AWS S3 / MinIO, which this machine cannot run or reach. The S3 edge is
// tested against it only; not verified against AWS or MinIO. In front of it, a recording proxy
// (node:http) that logs every request the bridge makes (method, key, Range header, bytes
// answered), so tests can see that a seek is a ranged read; it can refuse chosen requests (a
// bucket policy's 403, so a test can make an upload fail part-way) or hold them until the test
// lets them through (a slow uplink, so a test can look at a move under way), and it answers
// AbortMultipartUpload itself (s3rver does not implement it: 405), logging it, so a test sees an
// abandoned upload being aborted. s3rver has no ListMultipartUploads either: the proxy keeps the
// uploads it saw begin (until completed or aborted) and answers that listing itself; a test may
// backdate one (`uploads[i].initiated`) to stand for an upload a bridge killed long ago left.
// The fake gets an access key of the test's own, so a log scan can look for its secret.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { parseS3Target, type S3Target } from '../s3Config.js';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  port: number;
  address: string;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as S3rverClass;
const accounts = require('s3rver/lib/models/account.js') as {
  DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
};

export interface LoggedRequest {
  method: string;
  /** The path after the bucket: the object key (no query). */
  key: string;
  /** The query string (e.g. `partNumber=2&uploadId=…` for a part of a multipart upload). */
  query: string;
  range: string | undefined;
  /** Bytes of the answer's body. */
  bytes: number;
  status: number;
}

export interface FakeS3 {
  /** The proxy's origin: the endpoint to give the bridge (OC_S3_ENDPOINT). */
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every request through the proxy, in order. */
  log: LoggedRequest[];
  /** Multipart uploads begun and neither completed nor aborted (the proxy's own record). */
  uploads: FakeUpload[];
  /** Requests answered 403 AccessDenied instead of being passed on (none when undefined). */
  refuse: ((request: LoggedRequest) => boolean) | undefined;
  /** Requests passed on only once the promise given for them settles (none held when undefined). */
  hold: ((request: LoggedRequest) => Promise<void> | undefined) | undefined;
  stop(): Promise<void>;
}

export interface FakeUpload {
  key: string;
  uploadId: string;
  /** When it began (a test may set it earlier). */
  initiated: Date;
}

/**
 * What a test needs to reach the fake: the AWS SDK's credential chain set to its key (as a
 * server's environment would be), the bridge's target for `url` (s3://BUCKET/PREFIX) at its
 * endpoint, and a client of the test's own to look at the bucket.
 */
export function fakeS3Access(s3: FakeS3, url: string): { target: S3Target; client: S3Client } {
  process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
  const target = parseS3Target(url, { OC_S3_ENDPOINT: s3.endpoint }) as S3Target;
  const client = new S3Client({
    region: target.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
  });
  return { target, client };
}

export async function startFakeS3(bucket: string): Promise<FakeS3> {
  // The tests' own S3 clients: without the SDK's Node-version notice (as the bridge's).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const directory = await mkdtemp(join(tmpdir(), 'oc-fake-s3-'));
  const accessKeyId = `OCTEST${randomBytes(6).toString('hex').toUpperCase()}`;
  const secretAccessKey = `oc-secret-${randomBytes(12).toString('hex')}`;
  accounts.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await s3.run();
  const log: LoggedRequest[] = [];
  const uploads: FakeUpload[] = [];
  const forget = (query: string) => {
    const id = new URLSearchParams(query).get('uploadId');
    const at = uploads.findIndex((u) => u.uploadId === id);
    if (at >= 0) uploads.splice(at, 1);
  };
  const control: Pick<FakeS3, 'refuse' | 'hold'> = { refuse: undefined, hold: undefined };
  // Forwards as is (the Host header too: the request's signature covers it).
  const proxy: Server = createServer((req, res) => {
    const entry: LoggedRequest = {
      method: req.method ?? '',
      key: decodeURIComponent((req.url ?? '').split('?')[0] ?? '').replace(`/${bucket}/`, ''),
      query: (req.url ?? '').split('?')[1] ?? '',
      range: req.headers.range,
      bytes: 0,
      status: 0,
    };
    log.push(entry);
    const answer = (status: number, body = ''): void => {
      entry.status = status;
      req.resume();
      res.writeHead(status, { 'Content-Type': 'application/xml' }).end(body);
    };
    if (control.refuse?.(entry) === true)
      return answer(
        403,
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
      );
    if (entry.method === 'DELETE' && /(^|&)uploadId=/.test(entry.query)) {
      forget(entry.query);
      return answer(204);
    }
    if (
      entry.method === 'GET' &&
      (entry.key === `/${bucket}` || entry.key === '') &&
      /(^|&)uploads(=|&|$)/.test(entry.query)
    )
      return answer(200, listUploads(bucket, uploads, new URLSearchParams(entry.query)));
    // Sent on to s3rver (once the test lets it through, if held).
    const forward = (): void => {
      const upstream = request(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          entry.status = answer.statusCode ?? 0;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => {
            entry.bytes += chunk.length;
            if (entry.method === 'POST') body.push(chunk);
          });
          answer.on('end', () => {
            if (entry.method !== 'POST' || entry.status !== 200) return;
            if (/(^|&)uploads(=|&|$)/.test(entry.query)) {
              const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(
                Buffer.concat(body).toString(),
              )?.[1];
              if (uploadId !== undefined)
                uploads.push({ key: entry.key, uploadId, initiated: new Date() });
            } else if (/(^|&)uploadId=/.test(entry.query)) forget(entry.query);
          });
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    const held = control.hold?.(entry);
    if (held === undefined) forward();
    else void held.then(forward, forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyPort = (proxy.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${proxyPort}`,
    bucket,
    accessKeyId,
    secretAccessKey,
    log,
    uploads,
    get hold() {
      return control.hold;
    },
    set hold(predicate) {
      control.hold = predicate;
    },
    get refuse() {
      return control.refuse;
    },
    set refuse(predicate) {
      control.refuse = predicate;
    },
    stop: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await s3.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** ListMultipartUploadsResult for the uploads under the request's prefix (one page: tests are small). */
function listUploads(bucket: string, uploads: FakeUpload[], query: URLSearchParams): string {
  const prefix = query.get('prefix') ?? '';
  const escape = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const rows = uploads
    .filter((u) => u.key.startsWith(prefix))
    .map(
      (u) =>
        `<Upload><Key>${escape(u.key)}</Key><UploadId>${escape(u.uploadId)}</UploadId><Initiated>${u.initiated.toISOString()}</Initiated><StorageClass>STANDARD</StorageClass></Upload>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket><Prefix>${escape(prefix)}</Prefix><MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>${rows}</ListMultipartUploadsResult>`;
}
