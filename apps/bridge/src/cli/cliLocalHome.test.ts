// `serve --desktop local` gives its desktop what a local desktop record gets (desktopHomes.ts),
// for real (runServe with its embedded gateway, bubblewrap, Xvnc, PostgreSQL-free SQLite data dir,
// a shell line typed into the desktop's xterm): as root it runs as a uid of its own (not the
// shared oc-desktop), its HOME is kept in the data dir and survives a restart of the bridge, and
// once the command line's desktop is given to another person through the API it starts again with
// a fresh uid and an empty HOME, the old owner's file gone from disk. Also with --guacd, where
// there is no pool of local desktops to notice the change (the desktop's own check does, within
// CLI_HOME_CHECK_MS).
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { eventually } from '@overlay-companion/gateway/testing';
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP_HOMES_DIR, DESKTOP_UID_FIRST } from '../desktops/desktopHomes.js';
import { CLI_HOME_CHECK_MS } from '../desktops/cliDesktopHome.js';
import { CLI_DESKTOP_SETTING } from '../desktops/desktopDirectory.js';
import { typeInDesktop } from '../files/testing/desktopShell.js';
import { silentLogger } from '../logger.js';
import { signIn } from '../testing/browserSession.js';
import { parseCommandLine } from './args.js';
import { runServe, type ServeHandle } from './serve.js';
import { removeDataDir } from '../testing/dataDirs.js';

const isRoot = process.getuid?.() === 0;
const ADMIN = { OC_ADMIN_USER: 'cliadmin', OC_ADMIN_PASSWORD: 'a long enough password 1' };

let dataDir: string;
/** More data dirs, one per further test. */
const dataDirs: string[] = [];
const running: ServeHandle[] = [];

async function serve(extraArgs: string[] = [], dir = dataDir): Promise<ServeHandle> {
  const command = parseCommandLine(
    ['serve', '--desktop', 'local', ...extraArgs, '--port', '0', '--data-dir', dir],
    { ...ADMIN, OC_DESKTOP_HOME_QUOTA: String(64 * 1024 * 1024) },
  );
  if (command.command !== 'serve') throw new Error('not serve');
  const handle = await runServe(command.options, silentLogger());
  running.push(handle);
  return handle;
}

function desktopOf(handle: ServeHandle) {
  const desktop = handle.source.supervisor?.running();
  if (desktop?.sandbox === undefined) throw new Error('the desktop is not sandboxed');
  return {
    desktop,
    sandbox: desktop.sandbox,
    shell: { env: desktop.env, homeOnHost: desktop.sandbox.homeDir },
  };
}

beforeAll(async () => {
  dataDir = await mkdtemp('/var/tmp/oc-cli-home-test-');
});

afterAll(async () => {
  for (const handle of running.splice(0)) await handle.stop().catch(() => undefined);
  for (const dir of [dataDir, ...dataDirs]) await removeDataDir(dir);
});

describe('serve --desktop local: a uid and a kept HOME of its own', () => {
  it('runs as its record’s own uid with its HOME in the data dir, kept over a restart; given away, it starts afresh', async () => {
    let handle = await serve();
    const first = desktopOf(handle);
    const recordId = (await handle.access.store.settings.get(CLI_DESKTOP_SETTING)) as string;
    expect(typeof recordId).toBe('string');
    expect(dirname(dirname(first.sandbox.homeDir))).toBe(join(dataDir, DESKTOP_HOMES_DIR));
    if (isRoot) {
      expect(first.sandbox.uid).toBeGreaterThanOrEqual(DESKTOP_UID_FIRST);
      expect((await stat(first.sandbox.homeDir)).uid).toBe(first.sandbox.uid);
    }
    await typeInDesktop(first.shell, 'echo "the admin notes" > ~/notes.txt');

    // The bridge restarted: the same uid and HOME, the file still there.
    await handle.stop();
    handle = await serve();
    const again = desktopOf(handle);
    expect(again.desktop.pid).not.toBe(first.desktop.pid);
    expect(again.sandbox.homeDir).toBe(first.sandbox.homeDir);
    expect(again.sandbox.uid).toBe(first.sandbox.uid);
    expect(await readFile(join(again.sandbox.homeDir, 'notes.txt'), 'utf8')).toBe(
      'the admin notes\n',
    );

    // Given to another person: it starts again, fresh, and the old HOME is gone.
    await giveAway(handle, recordId, 'cliheir');
    await startsAfresh(handle, again, 30_000);
  }, 180_000);
});

describe('serve --desktop local --guacd (no pool of local desktops): a desktop given away', () => {
  it('starts again on a fresh HOME, the old owner’s file gone', async () => {
    const dir = await mkdtemp('/var/tmp/oc-cli-guacd-home-test-');
    dataDirs.push(dir);
    // No guacd needs to answer: nothing here opens a window.
    const handle = await serve(['--guacd', '127.0.0.1:9'], dir);
    const first = desktopOf(handle);
    const recordId = (await handle.access.store.settings.get(CLI_DESKTOP_SETTING)) as string;
    await typeInDesktop(first.shell, 'echo "the admin notes" > ~/notes.txt');
    await giveAway(handle, recordId, 'guacdheir');
    await startsAfresh(handle, first, CLI_HOME_CHECK_MS + 30_000);
  }, 120_000);
});

/** Gives the command line's desktop record to a new member through the API, as an admin would. */
async function giveAway(handle: ServeHandle, recordId: string, username: string): Promise<void> {
  const heir = await handle.access.store.people.add({
    username,
    displayName: username,
    passwordHash: null,
    role: 'member',
  });
  const session = await signIn(handle.bridge.url, ADMIN.OC_ADMIN_USER, ADMIN.OC_ADMIN_PASSWORD);
  const given = await session.request(`${API.desktops}/${recordId}`, {
    method: 'PATCH',
    body: { owner_id: heir.id },
  });
  expect(given.status).toBe(200);
}

/** Waits until the desktop started again, then checks its HOME is fresh and `before`'s is gone. */
async function startsAfresh(
  handle: ServeHandle,
  before: ReturnType<typeof desktopOf>,
  timeoutMs: number,
): Promise<void> {
  const supervisor = handle.source.supervisor;
  await eventually(
    'the command line desktop started again',
    () =>
      Promise.resolve(
        supervisor?.state === 'running' && supervisor.current.pid !== before.desktop.pid
          ? true
          : undefined,
      ),
    timeoutMs,
  );
  const fresh = desktopOf(handle);
  expect(fresh.sandbox.homeDir).not.toBe(before.sandbox.homeDir);
  if (isRoot) expect(fresh.sandbox.uid).toBeGreaterThan(before.sandbox.uid);
  await expect(stat(dirname(before.sandbox.homeDir))).rejects.toThrow(/ENOENT/);
  await typeInDesktop(
    fresh.shell,
    'ls -A ~ > ~/listing.txt; cat ~/notes.txt >> ~/listing.txt 2>&1',
  );
  const listing = await readFile(join(fresh.sandbox.homeDir, 'listing.txt'), 'utf8');
  expect(listing).not.toContain('the admin notes');
  expect(listing).toMatch(/No such file/);
}
