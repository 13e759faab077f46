// The command line's local desktop (`serve --desktop local`, through prepareSource as serve runs
// it) held to its HOME's quota where the limit is only measured, like the pool's desktops, for
// real (bubblewrap, Xvnc, SQLite store, a shell line typed into the desktop's xterm): written past
// its quota, it is started again and that start refused in words, audited; a later start over
// the quota is refused too (before, both only warned).
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '@overlay-companion/gateway/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareSource, type PreparedSource } from '../cli/desktopSource.js';
import { typeInDesktop } from '../files/testing/desktopShell.js';
import { silentLogger } from '../logger.js';
import { newId } from '../store/ids.js';
import { openStore } from '../store/openStore.js';
import type { Store } from '../store/types.js';
import { removeDataDir } from '../testing/dataDirs.js';
import { CliDesktopHome } from './cliDesktopHome.js';
import { CLI_DESKTOP_SETTING } from './desktopDirectory.js';
import { DESKTOP_HOMES_DIR, DesktopHomes } from './desktopHomes.js';
import { DesktopReachError } from './errors.js';

const MiB = 1024 * 1024;
const QUOTA = 16 * MiB;

let dataDir: string;
let store: Store;
let homes: DesktopHomes;
/** Run at the end, last first: stop watching, stop the desktop. */
const cleanups: (() => Promise<void>)[] = [];
const overQuota: { desktopId: string; used: number }[] = [];

function cliHome(): CliDesktopHome {
  return new CliDesktopHome({
    homes,
    store,
    quotaBytes: QUOTA,
    logger: silentLogger(),
    onOverQuota: (desktopId, used) => overQuota.push({ desktopId, used }),
    checkMs: 300,
  });
}

async function startCliDesktop(home: CliDesktopHome): Promise<PreparedSource> {
  // As serve does: the source, then the watch that starts it again.
  const source = await prepareSource({ kind: 'local' }, undefined, false, silentLogger(), home);
  const { supervisor } = source;
  if (supervisor === undefined) throw new Error('no supervisor');
  cleanups.push(() => supervisor.stop());
  const unwatch = home.watch((reason, needed) => supervisor.restartNow(reason, needed));
  cleanups.push(() => Promise.resolve(unwatch()));
  return source;
}

let recordId: string;

beforeAll(async () => {
  dataDir = await mkdtemp('/var/tmp/oc-cli-quota-test-');
  store = await openStore({ dataDir });
  // Measured even as root, as without loop devices.
  homes = new DesktopHomes(join(dataDir, DESKTOP_HOMES_DIR), { measureOnly: true });
  const owner = await store.people.add({
    username: 'cliowner',
    displayName: 'CLI owner',
    passwordHash: null,
    role: 'admin',
  });
  recordId = newId('dsk');
  await store.desktops.add({
    id: recordId,
    name: 'Desktop',
    kind: 'local',
    params: {},
    secret: null,
    ownerId: owner.id,
  });
  await store.settings.set(CLI_DESKTOP_SETTING, recordId);
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await store?.close();
  await removeDataDir(dataDir);
});

describe('the command line desktop’s measured HOME quota', () => {
  it('is started again and refused once written past its quota; a later start is refused too', async () => {
    const home = cliHome();
    const source = await startCliDesktop(home);
    const supervisor = source.supervisor;
    const desktop = supervisor?.running();
    if (desktop?.sandbox === undefined) throw new Error('not sandboxed');
    await typeInDesktop(
      { env: desktop.env, homeOnHost: desktop.sandbox.homeDir },
      'dd if=/dev/zero of=~/big bs=1M count=32 2>/dev/null',
    );
    await eventually(
      'the desktop refused over its quota',
      () => Promise.resolve(supervisor?.state === 'down' ? true : undefined),
      30_000,
    );
    expect(() => supervisor?.running()).toThrow(DesktopReachError);
    expect(() => supervisor?.running()).toThrow(/more than the 16 MiB a desktop may keep/);
    expect(overQuota.map((event) => event.desktopId)).toContain(recordId);
    expect(overQuota[0]?.used).toBeGreaterThan(QUOTA);
    // Its files stay (an admin decides), and the next start is refused saying why.
    expect((await readFile(join(desktop.sandbox.homeDir, 'big'))).length).toBe(32 * MiB);
    await expect(
      prepareSource({ kind: 'local' }, undefined, false, silentLogger(), cliHome()),
    ).rejects.toThrow(/more than the 16 MiB a desktop may keep/);
  }, 90_000);
});
