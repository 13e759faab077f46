// Apache's guacenc for the recording tests: OC_GUACENC, else /opt/guacd-1.6.0/bin/guacenc, else
// /opt/guacenc-1.6.0/bin/guacenc (../shared/vendor/build-guacenc.sh); or why there is none.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export function findGuacenc(): { path?: string; skip?: string } {
  const fromEnv = process.env.OC_GUACENC?.trim();
  const candidates = fromEnv
    ? [fromEnv]
    : ['/opt/guacd-1.6.0/bin/guacenc', '/opt/guacenc-1.6.0/bin/guacenc'];
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return { path };
    } catch {
      // not there
    }
  }
  return {
    skip: `no guacenc (${fromEnv ? `OC_GUACENC=${fromEnv} is not executable` : candidates.join(', ')}); build it with ../shared/vendor/build-guacenc.sh (needs libavcodec-dev, libavformat-dev, libavutil-dev, libswscale-dev, libcairo2-dev, libpng-dev, libjpeg62-turbo-dev, libwebp-dev)`,
  };
}

/** Converts `recording` with guacenc at `width`×`height`; returns the video's path and stderr. */
export async function guacenc(
  path: string,
  recording: string,
  width: number,
  height: number,
): Promise<{ video: string; stderr: string }> {
  const { stderr } = await run(path, ['-s', `${width}x${height}`, '-f', recording], {
    env: { ...process.env, LD_LIBRARY_PATH: join(dirname(dirname(path)), 'lib') },
  });
  return { video: `${recording}.m4v`, stderr };
}
