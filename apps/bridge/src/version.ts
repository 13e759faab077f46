// The bridge's version, read once from its package.json (the same file in src and dist layouts).
import { readFileSync } from 'node:fs';

function readVersion(): string {
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

export const BRIDGE_VERSION = readVersion();
