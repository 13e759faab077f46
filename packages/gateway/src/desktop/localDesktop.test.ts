// startLocalDesktop against the real Xvnc: a desktop that fails to come up leaves nothing behind
// (no Xvnc, no work dir with its password file).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalDesktopError, startLocalDesktop } from './localDesktop.js';

describe('startLocalDesktop', () => {
  let scratch: string;
  let savedTmp: string | undefined;
  beforeEach(async () => {
    // The work dir goes to os.tmpdir(), which follows TMPDIR: give it a dir of its own to watch.
    scratch = await mkdtemp(join(tmpdir(), 'oc-desktop-test-'));
    savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
  });
  afterEach(async () => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    await rm(scratch, { recursive: true, force: true });
  });

  it('removes its work dir and password file when Xvnc does not come up', async () => {
    const start = startLocalDesktop({
      password: 'secret12',
      windowManager: false,
      extraArgs: ['-no-such-option'],
    });
    await expect(start).rejects.toBeInstanceOf(LocalDesktopError);
    await expect(start).rejects.toThrow(/Xvnc exited with code/);
    expect(await readdir(scratch)).toEqual([]);
  });
});
