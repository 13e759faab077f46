// The bridge's version in the release form `YYYY.MM.DD[.N]` (see calver.ts), read once from its
// package.json (the same file in src and dist layouts). The root package.json holds the version
// of record; scripts/release/setVersion.ts writes it into every workspace, this one included.
import { readFileSync } from 'node:fs';
import { formatCalVer, fromNpmVersion } from './calver.js';

function readPackageVersion(): string {
  try {
    const pkg = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as unknown;
    if (
      typeof pkg === 'object' &&
      pkg !== null &&
      'version' in pkg &&
      typeof pkg.version === 'string'
    )
      return pkg.version;
  } catch {
    // fall through: a missing package.json must not stop the bridge
  }
  return '0.0.0';
}

/** The release form of an npm version; anything that is not a release version is kept as is. */
export function releaseVersion(npmVersion: string): string {
  const version = fromNpmVersion(npmVersion);
  return version === undefined ? npmVersion : formatCalVer(version);
}

export const BRIDGE_VERSION = releaseVersion(readPackageVersion());
