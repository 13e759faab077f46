// The release scripts against real git repositories in temp dirs with real tags (lightweight and
// annotated): the next version from the tags (first of a day, then .1, .2 …; other tags ignored;
// a tag from a later day refused), and a whole cut — versions written into every package.json
// and the lockfile, the changelog's Unreleased entries moved under the release, one commit, one
// annotated tag — done twice on one day, and refused on a dirty tree or an empty changelog.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatCalVer } from '../../apps/bridge/src/calver.js';
import { cutChangelog } from './changelog.js';
import { gitTags, nextVersion, parseDay } from './nextVersion.js';
import { cutRelease } from './release.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Release Test',
  GIT_AUTHOR_EMAIL: 'release@test.invalid',
  GIT_COMMITTER_NAME: 'Release Test',
  GIT_COMMITTER_EMAIL: 'release@test.invalid',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: GIT_ENV });
}

async function repo(files: Record<string, string> = { 'README.md': 'x\n' }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'oc-release-'));
  dirs.push(dir);
  git(dir, 'init', '--quiet', '--initial-branch=main');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  git(dir, 'add', '.');
  git(dir, 'commit', '--quiet', '-m', 'start');
  return dir;
}

const day = (text: string) => parseDay(text);
const next = (dir: string, text: string) => formatCalVer(nextVersion(gitTags(dir), day(text)));

describe('next version from tags', () => {
  it('is the day itself without release tags, and ignores tags that are not releases', async () => {
    const dir = await repo();
    expect(next(dir, '2026-11-25')).toBe('2026.11.25');
    git(dir, 'tag', 'v1.0.0');
    git(dir, 'tag', 'nightly');
    git(dir, 'tag', 'v2026.11.25-rc');
    expect(next(dir, '2026-11-25')).toBe('2026.11.25');
  });

  it('counts up within a day: .1 after the first release, then .2, also past .9', async () => {
    const dir = await repo();
    git(dir, 'tag', 'v2026.11.24.4');
    git(dir, 'tag', '-a', 'v2026.11.25', '-m', 'first');
    expect(next(dir, '2026-11-25')).toBe('2026.11.25.1');
    git(dir, 'tag', 'v2026.11.25.1');
    expect(next(dir, '2026-11-25')).toBe('2026.11.25.2');
    for (let n = 2; n <= 9; n += 1) git(dir, 'tag', `v2026.11.25.${n}`);
    expect(next(dir, '2026-11-25')).toBe('2026.11.25.10');
    // A new day starts again at its base version.
    expect(next(dir, '2026-11-26')).toBe('2026.11.26');
    expect(next(dir, '2027-01-05')).toBe('2027.01.05');
  });

  it('refuses a day before the newest release tag (a wrong clock) and days that do not exist', async () => {
    const dir = await repo();
    git(dir, 'tag', 'v2026.11.25');
    expect(() => next(dir, '2026-11-24')).toThrow(/v2026\.11\.25 is later than 2026\.11\.24/);
    expect(() => day('2026-02-30')).toThrow(/YYYY-MM-DD/);
    expect(() => day('25.11.2026')).toThrow(/YYYY-MM-DD/);
  });
});

describe('changelog', () => {
  it('moves the Unreleased entries under the release and keeps an empty Unreleased on top', () => {
    const text =
      '# Changelog\n\nIntro.\n\n## [Unreleased]\n\n### Added\n\n- b\n\n## [2026.11.24] - 2026-11-24\n\n- a\n';
    expect(cutChangelog(text, '2026.11.25', '2026-11-25')).toBe(
      '# Changelog\n\nIntro.\n\n## [Unreleased]\n\n## [2026.11.25] - 2026-11-25\n\n### Added\n\n- b\n\n## [2026.11.24] - 2026-11-24\n\n- a\n',
    );
    expect(() => cutChangelog('# Changelog\n', '2026.11.25', '2026-11-25')).toThrow(/Unreleased/);
  });
});

describe('cut a release', () => {
  const workspace = async () =>
    repo({
      'package.json': `${JSON.stringify({ name: 'root', version: '0.1.0', workspaces: ['packages/a', 'apps/b'], devDependencies: { x: '^1.0.0' } }, null, 2)}\n`,
      'packages/a/package.json': `${JSON.stringify({ name: '@s/a', version: '0.1.0' }, null, 2)}\n`,
      'apps/b/package.json': `${JSON.stringify({ name: '@s/b', version: '0.1.0', dependencies: { '@s/a': '0.1.0', zod: '^4.0.0' } }, null, 2)}\n`,
      'package-lock.json': `${JSON.stringify(
        {
          name: 'root',
          version: '0.1.0',
          lockfileVersion: 3,
          packages: {
            '': { name: 'root', version: '0.1.0', workspaces: ['packages/a', 'apps/b'] },
            'apps/b': {
              name: '@s/b',
              version: '0.1.0',
              dependencies: { '@s/a': '0.1.0', zod: '^4.0.0' },
            },
            'packages/a': { name: '@s/a', version: '0.1.0' },
            'node_modules/@s/a': { resolved: 'packages/a', link: true },
          },
        },
        null,
        2,
      )}\n`,
      'CHANGELOG.md': '# Changelog\n\n## [Unreleased]\n\n### Added\n\n- everything\n',
    });
  const json = async (dir: string, path: string) =>
    JSON.parse(await readFile(join(dir, path), 'utf8')) as Record<string, unknown>;

  it('writes the version everywhere, commits, tags; a second cut that day is .1', async () => {
    const dir = await workspace();
    const first = await cutRelease({ cwd: dir, day: day('2026-11-25') });
    expect(first).toMatchObject({ version: '2026.11.25', tag: 'v2026.11.25' });
    expect((await json(dir, 'package.json')).version).toBe('2026.1125.0');
    expect((await json(dir, 'packages/a/package.json')).version).toBe('2026.1125.0');
    expect(await json(dir, 'apps/b/package.json')).toEqual({
      name: '@s/b',
      version: '2026.1125.0',
      dependencies: { '@s/a': '2026.1125.0', zod: '^4.0.0' },
    });
    const lock = await json(dir, 'package-lock.json');
    expect(lock.version).toBe('2026.1125.0');
    expect(lock.packages).toMatchObject({
      '': { version: '2026.1125.0' },
      'apps/b': { version: '2026.1125.0', dependencies: { '@s/a': '2026.1125.0', zod: '^4.0.0' } },
      'packages/a': { version: '2026.1125.0' },
      'node_modules/@s/a': { resolved: 'packages/a', link: true },
    });
    expect(await readFile(join(dir, 'CHANGELOG.md'), 'utf8')).toBe(
      '# Changelog\n\n## [Unreleased]\n\n## [2026.11.25] - 2026-11-25\n\n### Added\n\n- everything\n',
    );
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'log', '-1', '--format=%s')).toBe('release 2026.11.25\n');
    expect(git(dir, 'cat-file', '-t', 'v2026.11.25')).toBe('tag\n'); // annotated
    expect(git(dir, 'rev-parse', 'v2026.11.25^{commit}')).toBe(git(dir, 'rev-parse', 'HEAD'));

    // Nothing new under Unreleased: refused before anything is written.
    await expect(cutRelease({ cwd: dir, day: day('2026-11-25') })).rejects.toThrow(/Nothing under/);
    await writeFile(
      join(dir, 'CHANGELOG.md'),
      (await readFile(join(dir, 'CHANGELOG.md'), 'utf8')).replace(
        '## [Unreleased]\n',
        '## [Unreleased]\n\n### Fixed\n\n- a bug\n',
      ),
    );
    // A dirty tree is refused, naming the file.
    await expect(cutRelease({ cwd: dir, day: day('2026-11-25') })).rejects.toThrow(/CHANGELOG\.md/);
    git(dir, 'commit', '--quiet', '-am', 'fix');
    const dry = await cutRelease({ cwd: dir, day: day('2026-11-25'), dryRun: true });
    expect(dry).toEqual({ version: '2026.11.25.1', tag: 'v2026.11.25.1', files: [] });
    expect(git(dir, 'tag', '--list')).toBe('v2026.11.25\n');
    const second = await cutRelease({ cwd: dir, day: day('2026-11-25') });
    expect(second.tag).toBe('v2026.11.25.1');
    expect((await json(dir, 'apps/b/package.json')).version).toBe('2026.1125.1');
    expect(git(dir, 'tag', '--list').split('\n').filter(Boolean)).toEqual([
      'v2026.11.25',
      'v2026.11.25.1',
    ]);
  });
});
