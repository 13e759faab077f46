// A bridge killed with SIGKILL while its local desktop runs, for real (the `overlay-companion`
// command as a child process, bubblewrap, Xvnc, a shell line typed into the desktop's xterm): as
// root the desktop's HOME is a file system mounted in the data dir, and the killed bridge leaves
// it mounted. The next start on that data dir unmounts it before the desktop starts again, so the
// HOME is mounted once, afresh (the quota as now configured), with its files; and the test's
// teardown (removeDataDir) leaves no mount behind.
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '@overlay-companion/gateway/testing';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { typeInDesktop } from '../files/testing/desktopShell.js';
import { spawnCli, type CliProcess } from '../headless/testing/cliProcess.js';
import { mountsUnder, removeDataDir } from '../testing/dataDirs.js';
import { DESKTOP_HOMES_DIR } from './desktopHomes.js';

const isRoot = process.getuid?.() === 0;
const MiB = 1024 * 1024;
const ADMIN = { OC_ADMIN_USER: 'killadmin', OC_ADMIN_PASSWORD: 'a long enough password 2' };

let dataDir: string;
const children: CliProcess[] = [];

async function serve(
  quotaBytes: number,
): Promise<{ shell: { env: NodeJS.ProcessEnv; homeOnHost: string }; serve: CliProcess }> {
  const serve = spawnCli(['serve', '--desktop', 'local', '--port', '0', '--data-dir', dataDir], {
    ...ADMIN,
    OC_DESKTOP_HOME_QUOTA: String(quotaBytes),
  });
  children.push(serve);
  await eventually(
    'the bridge to be ready',
    () => /Press Ctrl-C to stop/.test(serve.stdout()) || serve.child.exitCode !== null,
    60_000,
  );
  const line = /Desktop: local desktop on display :(\d+) \(XAUTHORITY=([^;\s]+);/.exec(
    serve.stdout(),
  );
  expect(line, serve.stderr()).not.toBeNull();
  const env = { ...process.env, DISPLAY: `:${line?.[1] ?? ''}`, XAUTHORITY: line?.[2] ?? '' };
  const homes = (await mountsUnder(join(dataDir, DESKTOP_HOMES_DIR))).filter((p) =>
    p.endsWith('/home'),
  );
  expect(homes, 'the desktop’s HOME is mounted').toHaveLength(1);
  return { serve, shell: { env, homeOnHost: homes[0] ?? '' } };
}

beforeAll(async () => {
  dataDir = await mkdtemp('/var/tmp/oc-killed-bridge-test-');
});

afterEach(async () => {
  for (const { child, exited } of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGINT');
    await exited;
  }
});

afterAll(async () => {
  await removeDataDir(dataDir);
  expect(await mountsUnder(dataDir)).toEqual([]);
});

it.skipIf(!isRoot)(
  'after SIGKILL the next start mounts the HOME once, afresh, with its files; nothing is left mounted',
  async () => {
    const first = await serve(32 * MiB);
    await typeInDesktop(first.shell, 'echo "before the kill" > ~/kept.txt');
    first.serve.child.kill('SIGKILL');
    await first.serve.exited;
    // What the killed bridge left: its desktop's HOME, still mounted.
    expect(await mountsUnder(first.shell.homeOnHost)).toEqual([first.shell.homeOnHost]);

    // Started again with a larger quota: the stale mount went first, the HOME was mounted anew
    // (grown to the new quota), once, and holds what was written before the kill.
    const second = await serve(64 * MiB);
    expect(second.shell.homeOnHost).toBe(first.shell.homeOnHost);
    await typeInDesktop(
      second.shell,
      'cat ~/kept.txt > ~/seen.txt; df -B1 --output=size ~ | tail -1 > ~/size.txt',
    );
    expect(await readFile(join(second.shell.homeOnHost, 'seen.txt'), 'utf8')).toBe(
      'before the kill\n',
    );
    const size = Number((await readFile(join(second.shell.homeOnHost, 'size.txt'), 'utf8')).trim());
    expect(size).toBeGreaterThan(48 * MiB);
    expect(await mountsUnder(second.shell.homeOnHost)).toEqual([second.shell.homeOnHost]);
    const mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
    expect(
      mountinfo.split('\n').filter((l) => l.split(' ')[4] === second.shell.homeOnHost),
    ).toHaveLength(1);

    // Killed again: the teardown's removeDataDir unmounts it before deleting (see afterAll).
    second.serve.child.kill('SIGKILL');
    await second.serve.exited;
    expect(await mountsUnder(dataDir)).not.toEqual([]);
  },
  240_000,
);
