// `overlay-companion --version` (and `version`) as a child process prints the release version in
// the tool spec's `YYYY.MM.DD[.N]` form — the root package.json's version of record, which every
// workspace's package.json repeats.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatCalVer, fromNpmVersion } from '../calver.js';
import { REPO, spawnCli } from '../headless/testing/cliProcess.js';

async function packageVersion(dir: string): Promise<string> {
  const pkg = JSON.parse(await readFile(join(REPO, dir, 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

describe('overlay-companion --version', () => {
  it('prints YYYY.MM.DD[.N], the version of record in the root package.json', async () => {
    const recorded = fromNpmVersion(await packageVersion('.'));
    expect(recorded, 'the root package.json version is a release version').toBeDefined();
    for (const flag of ['--version', 'version']) {
      const cli = spawnCli([flag]);
      // 'close' comes after the output streams have ended ('exit' may come before).
      const code = await new Promise((resolve) => cli.child.once('close', resolve));
      expect(code).toBe(0);
      expect(cli.stdout()).toMatch(/^\d{4}\.\d{2}\.\d{2}(\.[1-9]\d*)?\n$/);
      expect(cli.stdout().trim()).toBe(formatCalVer(recorded!));
    }
  });

  it('every workspace carries the root version', async () => {
    const root = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
      version: string;
      workspaces: string[];
    };
    for (const dir of root.workspaces) expect(await packageVersion(dir), dir).toBe(root.version);
  });
});
