// The release command. `next` prints the version the next release gets (from the git tags);
// `cut` makes that release: it writes the version into every package.json and the lockfile,
// moves CHANGELOG.md's Unreleased entries under it, commits those files and tags the commit
// `vYYYY.MM.DD[.N]`. `cut --dry-run` only says what it would do. Both take `--date YYYY-MM-DD`
// (default: today, UTC). A release is cut from a clean work tree only.
//   npm run release:next            npm run release -- --dry-run
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatCalVer } from '../../apps/bridge/src/calver.js';
import { cutChangelog } from './changelog.js';
import { gitTags, nextVersion, parseDay } from './nextVersion.js';
import { setVersion } from './setVersion.js';

export interface CutOptions {
  cwd: string;
  day: Date;
  dryRun?: boolean;
}

export interface CutResult {
  version: string;
  tag: string;
  files: string[];
}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

export async function cutRelease({ cwd, day, dryRun = false }: CutOptions): Promise<CutResult> {
  const dirty = git(cwd, ['status', '--porcelain']).trimEnd();
  if (dirty !== '') {
    throw new Error(`The work tree has changes; commit or remove them first:\n${dirty}`);
  }
  const next = nextVersion(gitTags(cwd), day);
  const version = formatCalVer(next);
  const tag = `v${version}`;
  const date = day.toISOString().slice(0, 10);
  const changelogPath = join(cwd, 'CHANGELOG.md');
  // Cut the changelog first: it refuses an empty release before anything is written.
  const changelog = cutChangelog(await readFile(changelogPath, 'utf8'), version, date);
  if (dryRun) return { version, tag, files: [] };

  await writeFile(changelogPath, changelog);
  const files = [...(await setVersion(cwd, next)), 'CHANGELOG.md'];
  git(cwd, ['add', '--', ...files]);
  git(cwd, ['commit', '--quiet', '-m', `release ${version}`, '--', ...files]);
  git(cwd, ['tag', '--annotate', tag, '-m', `Overlay Companion ${version}`]);
  return { version, tag, files };
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { date: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  });
  const cwd = process.cwd();
  const day = parseDay(values.date);
  switch (positionals[0]) {
    case 'next':
      console.log(formatCalVer(nextVersion(gitTags(cwd), day)));
      return;
    case 'cut': {
      const result = await cutRelease({ cwd, day, dryRun: values['dry-run'] === true });
      console.log(
        values['dry-run'] === true
          ? `Would release ${result.version} and tag ${result.tag}.`
          : `Released ${result.version}: committed ${result.files.join(', ')} and tagged ${result.tag}.`,
      );
      return;
    }
    default:
      throw new Error('Usage: release.ts next|cut [--date YYYY-MM-DD] [--dry-run]');
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(`release: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
