// The sandbox's launcher script (LAUNCHER_SCRIPT in sandbox.ts) ends when Xvnc ends, also while
// it is still waiting for the window manager to take over the screen — the moment a desktop
// killed soon after it started was noticed 6 s late (the wait ran its 250 rounds against a dead
// X server), so the bridge went on sending viewers to a dead socket instead of saying the desktop
// is being started again. Run outside bwrap with a real Xvnc and the real xprop; the window
// manager is a stand-in that never takes over (`sleep`), and xprop is wrapped to count its calls.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { eventually } from '../testing/events.js';
import { launcherCommand } from './sandbox.js';
import { findDescendant } from './sandboxProcess.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function xpropCalls(log: string): Promise<number> {
  return (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
}

it('ends with Xvnc while it waits for the window manager, without running out its wait', async () => {
  dir = await mkdtemp(join(tmpdir(), 'oc-launcher-'));
  const log = join(dir, 'xprop.log');
  // Stand-ins named as such: a window manager that never answers, an xprop that counts.
  await writeFile(join(dir, 'openbox'), '#!/bin/sh\nexec sleep 60\n');
  await writeFile(
    join(dir, 'xprop'),
    `#!/bin/sh\necho call >> '${log}'\nexec /usr/bin/xprop "$@"\n`,
  );
  await chmod(join(dir, 'openbox'), 0o755);
  await chmod(join(dir, 'xprop'), 0o755);

  // A display far above the ones claimDisplay hands out (from :20 up).
  const display = `:${String(700 + (process.pid % 250))}`;
  const [command, ...args] = launcherCommand(display, true, undefined, [
    '-geometry',
    '320x200',
    '-depth',
    '24',
    '-displayfd',
    '3',
    '-SecurityTypes',
    'None',
    '-rfbport',
    '-1',
    '-nolisten',
    'tcp',
  ]);
  const launcher = spawn(command ?? 'bash', args, {
    env: { PATH: `${dir}:/usr/bin:/bin`, DISPLAY: display, HOME: dir },
    stdio: ['pipe', 'ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const ended = new Promise<number | null>((resolve) => launcher.once('exit', resolve));
  try {
    // What the bridge says once it has locked the sandbox; then the launcher starts the window
    // manager and asks xprop, round after round, whether it has taken over.
    launcher.stdin?.end('locked\n');
    await eventually('the launcher asks xprop about the window manager', async () =>
      (await xpropCalls(log)) > 0 ? true : undefined,
    );
    const xvnc = await findDescendant(launcher.pid ?? 0, 'Xvnc');
    expect(xvnc).toBeGreaterThan(0);
    process.kill(xvnc, 'SIGKILL');
    const before = await xpropCalls(log);

    // Bash reports its child's SIGKILL as 128 + 9, as bwrap then passes on to the bridge.
    expect(await ended).toBe(137);
    // At most the call under way and one more: before the fix, the rest of 250 rounds (≥ 5 s).
    expect((await xpropCalls(log)) - before).toBeLessThanOrEqual(2);
  } finally {
    // The stand-in window manager outlives the launcher (in the background, in its group), and
    // a killed Xvnc leaves its socket and lock file.
    try {
      process.kill(-(launcher.pid ?? 0), 'SIGKILL');
    } catch {
      // the group is gone
    }
    await rm(`/tmp/.X11-unix/X${display.slice(1)}`, { force: true });
    await rm(`/tmp/.X${display.slice(1)}-lock`, { force: true });
  }
});
