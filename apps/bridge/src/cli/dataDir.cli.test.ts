// `serve` with a data dir that belongs to another user: the real command refuses before it starts
// anything (no desktop, no listener), exits 1, and says which command fixes it. Needs root to
// hand the dir to another user; otherwise the check itself is covered in store/dataDir.test.ts.
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli } from '../headless/testing/cliProcess.js';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
let dir: string | undefined;

afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('serve and its data dir', () => {
  it.runIf(isRoot)('refuses a data dir owned by another user, starting nothing', async () => {
    dir = await mkdtemp(join(tmpdir(), 'oc-foreign-data-'));
    await chown(dir, NOBODY, NOBODY);
    const cli = spawnCli(['serve', '--desktop', 'local', '--port', '0', '--data-dir', dir]);
    const exit = await cli.exited;
    expect(exit.code).toBe(1);
    expect(cli.stderr()).toContain(`The data dir ${dir} is owned by uid ${NOBODY}`);
    expect(cli.stderr()).toMatch(/chown \S+ /);
    expect(cli.stdout()).not.toMatch(/Open:/);
    expect(cli.stderr()).not.toMatch(/Xvnc|display :\d/);
  });
});
