// The data dir checks on real files: created 0700; an existing one of ours that others may read
// tightened to 0700; refused, with the command that fixes it, when the dir or a secret file is
// group/other-writable or owned by another user (as root, the tests chown to `nobody`), or when
// the dir cannot be tightened (as root, a read-only bind mount of it); and openStore applies
// them before it touches the database. judgeDataDir, the decision alone, is tested for every
// case whoever runs the tests.
import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StartupError } from '../errors.js';
import {
  DATABASE_FILE,
  DataDirError,
  SECRET_FILES,
  judgeDataDir,
  prepareDataDir,
} from './dataDir.js';
import { openStore } from './openStore.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'oc-datadir-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/**
 * Mounts `dir` read-only over itself (so chmod on it fails with EROFS) and returns the unmount,
 * or undefined when this process may not mount.
 */
function readOnlyBindMount(dir: string): (() => void) | undefined {
  try {
    execFileSync('mount', ['--bind', dir, dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const unmount = () => execFileSync('umount', [dir], { stdio: 'ignore' });
  try {
    execFileSync('mount', ['-o', 'remount,ro,bind', dir], { stdio: 'ignore' });
  } catch {
    unmount();
    return undefined;
  }
  return unmount;
}

/** A data dir that passes the checks, with every secret file present and 0600. */
async function safeDir(): Promise<string> {
  const dir = join(root, 'data');
  await mkdir(dir, { mode: 0o700 });
  for (const name of SECRET_FILES) await writeFile(join(dir, name), 'x', { mode: 0o600 });
  return dir;
}

describe('prepareDataDir', () => {
  test('creates a missing dir (and its parents) with mode 0700', async () => {
    const dir = join(root, 'a', 'b', 'data');
    await prepareDataDir(dir);
    expect(await modeOf(dir)).toBe(0o700);
  });

  test('accepts a dir and secret files only we can write (files readable by others too)', async () => {
    const dir = await safeDir();
    await expect(prepareDataDir(dir)).resolves.toBeUndefined();
    await chmod(join(dir, DATABASE_FILE), 0o644);
    await expect(prepareDataDir(dir)).resolves.toBeUndefined();
    // Files that are not secrets are none of its business.
    await writeFile(join(dir, 'notes.txt'), 'x', { mode: 0o666 });
    await chmod(join(dir, 'notes.txt'), 0o666);
    await expect(prepareDataDir(dir)).resolves.toBeUndefined();
  });

  test.each(['755', '750', '711', '705', '701'])(
    'tightens an existing dir of ours with mode %s (others could list it) to 0700, files untouched',
    async (mode) => {
      const dir = await safeDir();
      await chmod(dir, parseInt(mode, 8));
      await prepareDataDir(dir);
      expect(await modeOf(dir)).toBe(0o700);
      for (const name of SECRET_FILES) expect(await modeOf(join(dir, name))).toBe(0o600);
    },
  );

  test.runIf(isRoot)(
    'refuses a dir others can list that it cannot tighten (a read-only bind mount of it), saying to chmod 700',
    async (context) => {
      const dir = join(root, 'mounted data');
      await mkdir(dir);
      await chmod(dir, 0o755);
      const unmount = readOnlyBindMount(dir);
      if (unmount === undefined)
        return context.skip('this root cannot bind-mount (no CAP_SYS_ADMIN)');
      try {
        const refusal = prepareDataDir(dir, { secretFiles: [] });
        await expect(refusal).rejects.toBeInstanceOf(DataDirError);
        await expect(refusal).rejects.toThrow(
          `The data dir ${dir} can be listed by group and others (mode 755), showing other users the names of what the bridge keeps, and the bridge could not change that (EROFS). Run "chmod 700 '${dir}'" and start again.`,
        );
        expect(await modeOf(dir)).toBe(0o755);
      } finally {
        unmount();
      }
    },
  );

  test.each([
    ['770', 'its group'],
    ['707', 'others'],
    ['777', 'group and others'],
  ])('refuses a dir with mode %s (writable by %s) and says to chmod 700', async (mode, who) => {
    const dir = await safeDir();
    await chmod(dir, parseInt(mode, 8));
    const refusal = prepareDataDir(dir);
    await expect(refusal).rejects.toBeInstanceOf(DataDirError);
    await expect(refusal).rejects.toThrow(`The data dir ${dir} is writable by ${who}`);
    await expect(refusal).rejects.toThrow(`Run "chmod 700 ${dir}"`);
  });

  test.each(SECRET_FILES.map((name) => [name]))(
    'refuses the secret file %s when group or others can write it, and says to chmod 600',
    async (name) => {
      const dir = await safeDir();
      const file = join(dir, name);
      await chmod(file, 0o620);
      await expect(prepareDataDir(dir)).rejects.toThrow(`Run "chmod 600 ${file}"`);
    },
  );

  test('checks extra secret files it is given', async () => {
    const dir = await safeDir();
    await writeFile(join(dir, 'gateway.secret'), 'x', { mode: 0o600 });
    await chmod(join(dir, 'gateway.secret'), 0o666);
    await expect(prepareDataDir(dir)).resolves.toBeUndefined();
    await expect(prepareDataDir(dir, { secretFiles: ['gateway.secret'] })).rejects.toThrow(
      DataDirError,
    );
  });

  test.runIf(isRoot)('refuses a dir owned by another user and says to chown it', async () => {
    const dir = await safeDir();
    await chown(dir, NOBODY, NOBODY);
    const refusal = prepareDataDir(dir);
    await expect(refusal).rejects.toThrow(`The data dir ${dir} is owned by uid ${NOBODY}`);
    await expect(refusal).rejects.toThrow(`run "chown ${userInfo().username} ${dir}" (as root)`);
  });

  test.runIf(isRoot)('refuses a secret file owned by another user', async () => {
    const dir = await safeDir();
    const file = join(dir, DATABASE_FILE);
    await chown(file, NOBODY, NOBODY);
    await expect(prepareDataDir(dir)).rejects.toThrow(
      `The file ${file} in the data dir is owned by uid ${NOBODY}`,
    );
  });

  test('quotes a path with spaces in the command it suggests', async () => {
    const dir = join(root, 'my data');
    await mkdir(dir, { mode: 0o700 });
    await chmod(dir, 0o775);
    await expect(prepareDataDir(dir)).rejects.toThrow(`Run "chmod 700 '${dir}'"`);
  });

  test('refuses a data dir path that is a file', async () => {
    const path = join(root, 'file');
    await writeFile(path, 'x');
    await expect(prepareDataDir(path)).rejects.toThrow(/not a directory/);
  });

  test('DataDirError is a StartupError (the CLI reports it like any failed start)', () => {
    expect(new DataDirError('x')).toBeInstanceOf(StartupError);
  });
});

describe('judgeDataDir (the decision alone, from an owner and a mode)', () => {
  const ME = 1000;
  const OTHER = 1001;
  const refusal = (verdict: ReturnType<typeof judgeDataDir>): string =>
    verdict.action === 'refuse' ? verdict.message : `not refused: ${verdict.action}`;
  const judge = (mode: string, owner = ME) =>
    judgeDataDir('/srv/oc data', { uid: owner, mode: parseInt(mode, 8) }, ME);

  test('uses a 0700 dir of ours', () => {
    expect(judge('40700')).toEqual({ action: 'use' });
  });

  test.each(['755', '750', '711', '705', '701', '740'])(
    'tightens a dir of ours that group or others may read or enter (mode %s)',
    (mode) => {
      expect(judge(mode)).toEqual({ action: 'tighten' });
    },
  );

  test.each(['770', '707', '777', '720'])(
    'refuses a dir of ours that group or others may write (mode %s): its content may be swapped already',
    (mode) => {
      expect(refusal(judge(mode))).toContain(`Run "chmod 700 '/srv/oc data'"`);
    },
  );

  test('refuses a dir of another user, even 0700, saying to chown it (it cannot chmod it)', () => {
    expect(refusal(judge('700', OTHER))).toContain(
      `is owned by uid ${OTHER}, not by you (uid ${ME})`,
    );
    expect(refusal(judge('755', OTHER))).toContain('run "chown ');
  });

  test('has nothing to check without uids (Windows)', () => {
    expect(judgeDataDir('C:\\oc', { uid: 0, mode: 0o777 }, undefined)).toEqual({ action: 'use' });
  });
});

describe('openStore and the data dir', () => {
  test('refuses an unsafe data dir before it creates the database', async () => {
    const dir = join(root, 'data');
    await mkdir(dir, { mode: 0o700 });
    await chmod(dir, 0o777);
    await expect(openStore({ dataDir: dir })).rejects.toThrow(DataDirError);
    await expect(stat(join(dir, DATABASE_FILE))).rejects.toThrow(/ENOENT/);
  });

  test('tightens an existing readable database file to 0600', async () => {
    const dir = join(root, 'data');
    await mkdir(dir, { mode: 0o700 });
    await writeFile(join(dir, DATABASE_FILE), '');
    await chmod(join(dir, DATABASE_FILE), 0o644);
    const store = await openStore({ dataDir: dir });
    try {
      expect(await modeOf(join(dir, DATABASE_FILE))).toBe(0o600);
    } finally {
      await store.close();
    }
  });
});
