// `serve --desktop local --guacd …` has no pool of local desktops (the pool needs the embedded
// gateway), so nothing used to notice when the command line's desktop was given to another
// person through the API: its HOME stayed with the new owner. For real (runServe, bubblewrap,
// Xvnc, SQLite, a shell line typed into the desktop): given away, it starts again within the
// check's period on a fresh HOME (and, as root, a fresh uid), the old owner's file gone from disk.
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { eventually } from '@overlay-companion/gateway/testing';
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_DESKTOP_SETTING } from '../desktops/desktopDirectory.js';
import { CLI_HOME_CHECK_MS } from '../desktops/cliDesktopHome.js';
import { typeInDesktop } from '../files/testing/desktopShell.js';
import { silentLogger } from '../logger.js';
import { signIn } from '../testing/browserSession.js';
import { removeDataDir } from '../testing/dataDirs.js';
import { parseCommandLine } from './args.js';
import { runServe, type ServeHandle } from './serve.js';

const isRoot = process.getuid?.() === 0;
const ADMIN = { OC_ADMIN_USER: 'guacdadmin', OC_ADMIN_PASSWORD: 'a long enough password 1' };

let dataDir: string;
let handle: ServeHandle | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp('/var/tmp/oc-cli-guacd-home-test-');
});

afterAll(async () => {
  await handle?.stop().catch(() => undefined);
  await removeDataDir(dataDir);
});

describe('serve --desktop local --guacd: a desktop given away', () => {
  it('starts again on a fresh HOME, the old owner’s file gone', async () => {
    // No guacd needs to answer: nothing here opens a window.
    const command = parseCommandLine(
      [
        'serve',
        '--desktop',
        'local',
        '--guacd',
        '127.0.0.1:9',
        '--port',
        '0',
        '--data-dir',
        dataDir,
      ],
      { ...ADMIN, OC_DESKTOP_HOME_QUOTA: String(64 * 1024 * 1024) },
    );
    if (command.command !== 'serve') throw new Error('not serve');
    handle = await runServe(command.options, silentLogger());
    const supervisor = handle.source.supervisor;
    const first = supervisor?.running();
    if (first?.sandbox === undefined) throw new Error('the desktop is not sandboxed');
    const recordId = (await handle.access.store.settings.get(CLI_DESKTOP_SETTING)) as string;
    await typeInDesktop(
      { env: first.env, homeOnHost: first.sandbox.homeDir },
      'echo "the admin notes" > ~/notes.txt',
    );
    expect(await readFile(join(first.sandbox.homeDir, 'notes.txt'), 'utf8')).toBe(
      'the admin notes\n',
    );

    const heir = await handle.access.store.people.add({
      username: 'guacdheir',
      displayName: 'Heir',
      passwordHash: null,
      role: 'member',
    });
    const session = await signIn(handle.bridge.url, ADMIN.OC_ADMIN_USER, ADMIN.OC_ADMIN_PASSWORD);
    const given = await session.request(`${API.desktops}/${recordId}`, {
      method: 'PATCH',
      body: { owner_id: heir.id },
    });
    expect(given.status).toBe(200);
    await eventually(
      'the command line desktop started again',
      () =>
        Promise.resolve(
          supervisor?.state === 'running' && supervisor.current.pid !== first.pid
            ? true
            : undefined,
        ),
      CLI_HOME_CHECK_MS + 30_000,
    );
    const fresh = supervisor?.running();
    if (fresh?.sandbox === undefined) throw new Error('the desktop is not sandboxed');
    expect(fresh.sandbox.homeDir).not.toBe(first.sandbox.homeDir);
    if (isRoot) expect(fresh.sandbox.uid).not.toBe(first.sandbox.uid);
    await expect(stat(dirname(first.sandbox.homeDir))).rejects.toThrow(/ENOENT/);
    await typeInDesktop(
      { env: fresh.env, homeOnHost: fresh.sandbox.homeDir },
      'ls -A ~ > ~/listing.txt; cat ~/notes.txt >> ~/listing.txt 2>&1',
    );
    const listing = await readFile(join(fresh.sandbox.homeDir, 'listing.txt'), 'utf8');
    expect(listing).not.toContain('the admin notes');
    expect(listing).toMatch(/No such file/);
  }, 120_000);
});
