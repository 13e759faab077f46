// Writes one release version everywhere npm keeps it: the root package.json (the version of
// record), every workspace's package.json, the workspaces' pins on each other (exact versions, so
// npm links the workspace and never looks for a published package of that name), and the same
// fields in package-lock.json — edited in place, so no install runs and node_modules is untouched.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { toNpmVersion, type CalVer } from '../../apps/bridge/src/calver.js';

type Json = Record<string, unknown>;
const DEPENDENCY_FIELDS = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
] as const;

async function readJson(path: string): Promise<Json> {
  return JSON.parse(await readFile(path, 'utf8')) as Json;
}

async function writeJson(path: string, value: Json): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets `version` and re-pins the workspace packages named in `internal` in one manifest. */
function apply(manifest: Json, version: string, internal: ReadonlySet<string>): void {
  if ('version' in manifest || 'name' in manifest) manifest.version = version;
  for (const field of DEPENDENCY_FIELDS) {
    const deps = manifest[field];
    if (!isRecord(deps)) continue;
    for (const name of Object.keys(deps)) if (internal.has(name)) deps[name] = version;
  }
}

/** Sets `version` in the repository at `root`; returns the files it wrote, relative to root. */
export async function setVersion(root: string, calver: CalVer): Promise<string[]> {
  const version = toNpmVersion(calver);
  const rootManifest = await readJson(join(root, 'package.json'));
  const workspaces = Array.isArray(rootManifest.workspaces)
    ? rootManifest.workspaces.filter((w): w is string => typeof w === 'string')
    : [];
  const manifests = new Map<string, Json>([['package.json', rootManifest]]);
  for (const dir of workspaces) {
    if (dir.includes('*')) {
      throw new Error(`Workspace "${dir}": list workspaces by folder, without globs.`);
    }
    manifests.set(join(dir, 'package.json'), await readJson(join(root, dir, 'package.json')));
  }
  const internal = new Set(
    [...manifests.values()]
      .map((m) => m.name)
      .filter((name): name is string => typeof name === 'string'),
  );
  internal.delete(String(rootManifest.name));

  for (const [file, manifest] of manifests) {
    apply(manifest, version, internal);
    await writeJson(join(root, file), manifest);
  }

  const lockPath = join(root, 'package-lock.json');
  const lock = await readJson(lockPath).catch(() => undefined);
  if (lock === undefined) return [...manifests.keys()];
  lock.version = version;
  const packages = isRecord(lock.packages) ? lock.packages : {};
  for (const key of ['', ...workspaces]) {
    const entry = packages[key];
    if (isRecord(entry)) apply(entry, version, internal);
  }
  await writeJson(lockPath, lock);
  return [...manifests.keys(), 'package-lock.json'];
}
