// Where finished recordings go when they are kept on an S3-compatible store: the bucket and key
// prefix (serve --recordings-s3 s3://BUCKET/PREFIX, else OC_RECORDINGS_S3_URL), the endpoint of
// a store that is not AWS (OC_S3_ENDPOINT, e.g. MinIO or Ceph's RGW; path-style addressing
// then, unless OC_S3_PATH_STYLE=0) and the region (OC_S3_REGION, else AWS_REGION or
// AWS_DEFAULT_REGION, else us-east-1). Credentials are not read here: the AWS SDK's standard
// chain finds them (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, an instance role), so
// none ever passes through the bridge's options or logs.
import { ConfigError } from '../../errors.js';

export interface S3Target {
  bucket: string;
  /** Key prefix, '' or ending in '/'. */
  prefix: string;
  /** A non-AWS store's endpoint (origin only); undefined: AWS itself. */
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
}

/** S3's bucket naming rules (lowercase letters, digits, dots and hyphens, 3–63). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX_PART = /^[A-Za-z0-9._-]+$/;

/** The S3 target from the flag or the environment; undefined when neither names one. */
export function parseS3Target(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): S3Target | undefined {
  const text = flag ?? env.OC_RECORDINGS_S3_URL;
  if (text === undefined || text === '') return undefined;
  const what = flag === undefined ? 'OC_RECORDINGS_S3_URL' : '--recordings-s3';
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(text);
  const bucket = match?.[1] ?? '';
  if (match === null || !BUCKET.test(bucket))
    throw new ConfigError(
      `${what} is s3://BUCKET or s3://BUCKET/PREFIX (a bucket name of 3 to 63 lowercase letters, digits, dots and hyphens), got "${text}".`,
    );
  const parts = (match[2] ?? '').split('/').filter((p) => p !== '');
  if (!parts.every((p) => PREFIX_PART.test(p) && p !== '.' && p !== '..'))
    throw new ConfigError(
      `${what}'s prefix may hold letters, digits, ".", "_", "-" and "/" only, got "${match[2] ?? ''}".`,
    );
  const endpoint = parseEndpoint(env.OC_S3_ENDPOINT);
  const pathStyle = env.OC_S3_PATH_STYLE;
  if (pathStyle !== undefined && !['0', '1', ''].includes(pathStyle))
    throw new ConfigError(`OC_S3_PATH_STYLE is 1 or 0, got "${pathStyle}".`);
  return {
    bucket,
    prefix: parts.length === 0 ? '' : `${parts.join('/')}/`,
    endpoint,
    region: env.OC_S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: pathStyle === '1' || (pathStyle !== '0' && endpoint !== undefined),
  };
}

function parseEndpoint(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`OC_S3_ENDPOINT is a URL such as http://127.0.0.1:9000, got "${text}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError('OC_S3_ENDPOINT is an http:// or https:// URL.');
  // Credentials go in the AWS variables, never in a URL that would be printed.
  if (url.username !== '' || url.password !== '')
    throw new ConfigError(
      'OC_S3_ENDPOINT must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    );
  return url.origin;
}

/** The target as people read it in messages (no credentials are in it). */
export function describeS3Target(target: S3Target): string {
  const where = `s3://${target.bucket}/${target.prefix}`;
  return target.endpoint === undefined ? where : `${where} at ${target.endpoint}`;
}
