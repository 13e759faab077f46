// The S3 target from serve's flag and the environment: the bucket and prefix, a non-AWS
// endpoint with path-style addressing, the region; each mistake named with its fix, and no
// credential accepted anywhere it could be printed (the AWS variables carry those).
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../cli/args.js';
import { describeS3Target, parseS3Target } from './s3Config.js';

describe('the recordings S3 target', () => {
  it('reads serve --recordings-s3, else OC_RECORDINGS_S3_URL, with OC_S3_ENDPOINT path-style', () => {
    const serve = (argv: string[], env: NodeJS.ProcessEnv) => {
      const command = parseCommandLine(['serve', ...argv], env);
      return command.command === 'serve' ? command.options.recordingsS3 : undefined;
    };
    expect(serve([], {})).toBeUndefined();
    expect(serve(['--recordings-s3', 's3://oc-recs/site/a/'], { AWS_REGION: 'eu-west-1' })).toEqual(
      {
        bucket: 'oc-recs',
        prefix: 'site/a/',
        endpoint: undefined,
        region: 'eu-west-1',
        forcePathStyle: false,
      },
    );
    const fromEnv = serve([], {
      OC_RECORDINGS_S3_URL: 's3://oc-recs',
      OC_S3_ENDPOINT: 'http://minio.lan:9000/',
    });
    expect(fromEnv).toEqual({
      bucket: 'oc-recs',
      prefix: '',
      endpoint: 'http://minio.lan:9000',
      region: 'us-east-1',
      forcePathStyle: true,
    });
    expect(describeS3Target(fromEnv as never)).toBe('s3://oc-recs/ at http://minio.lan:9000');
    // The flag wins over the variable.
    expect(
      serve(['--recordings-s3', 's3://flag-bucket'], { OC_RECORDINGS_S3_URL: 's3://env-bucket' })
        ?.bucket,
    ).toBe('flag-bucket');
    expect(
      parseS3Target('s3://oc-recs', { OC_S3_ENDPOINT: 'https://s3.example', OC_S3_PATH_STYLE: '0' })
        ?.forcePathStyle,
    ).toBe(false);
  });

  it('refuses what is not a bucket, a prefix that could climb, and credentials in the endpoint', () => {
    const bad =
      (flag: string | undefined, env: NodeJS.ProcessEnv = {}) =>
      () =>
        parseS3Target(flag, env);
    expect(bad('https://oc-recs/x')).toThrow(/--recordings-s3 is s3:\/\/BUCKET/);
    expect(bad('s3://Upper_Case')).toThrow(/bucket name/);
    expect(bad(undefined, { OC_RECORDINGS_S3_URL: 's3://ab' })).toThrow(/^OC_RECORDINGS_S3_URL/);
    expect(bad('s3://oc-recs/a/../b')).toThrow(/prefix/);
    expect(bad('s3://oc-recs/a b')).toThrow(/prefix/);
    expect(bad('s3://oc-recs', { OC_S3_ENDPOINT: 'ftp://x' })).toThrow(/http/);
    expect(bad('s3://oc-recs', { OC_S3_ENDPOINT: 'http://key:hush-secret@minio:9000' })).toThrow(
      /must not carry credentials/,
    );
    expect(bad('s3://oc-recs', { OC_S3_PATH_STYLE: 'yes' })).toThrow(/OC_S3_PATH_STYLE/);
    // Through the command line: a usage error (exit 2) that names the flag.
    expect(() => parseCommandLine(['serve', '--recordings-s3', 'nope'], {})).toThrow(
      /--recordings-s3 is s3:\/\/BUCKET/,
    );
    try {
      parseS3Target('s3://oc-recs', { OC_S3_ENDPOINT: 'http://key:hush-secret@minio:9000' });
    } catch (err) {
      expect(String(err)).not.toContain('hush-secret');
    }
  });
});
