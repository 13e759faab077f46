// Test support: runs a shell line on a sandboxed local desktop the way its AI would — typed into
// the desktop's own xterm with xdotool — and waits until it has finished (it touches a marker in
// HOME). What the line does is done as the desktop's user, inside its sandbox.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '@overlay-companion/gateway/testing';

const run = promisify(execFile);

export interface DesktopShell {
  /** DISPLAY and XAUTHORITY of the desktop. */
  env: NodeJS.ProcessEnv;
  /** The desktop's HOME as this machine sees it. */
  homeOnHost: string;
}

export async function typeInDesktop(desktop: DesktopShell, line: string): Promise<void> {
  const { stdout } = await run(
    'timeout',
    ['45', 'xdotool', 'search', '--sync', '--onlyvisible', '--class', 'xterm'],
    { env: desktop.env },
  );
  const xterm = stdout.trim().split('\n')[0] ?? '';
  await run('xdotool', ['windowactivate', '--sync', xterm], { env: desktop.env });
  const marker = `.typed-${randomBytes(4).toString('hex')}`;
  await run(
    'xdotool',
    ['type', '--delay', '4', '--window', xterm, `${line}; touch ~/${marker}\n`],
    { env: desktop.env },
  );
  await eventually(
    `the typed line "${line}"`,
    () => lstat(join(desktop.homeOnHost, marker)).then(() => true),
    60_000,
  );
}
