// Typing a shell line into a sandboxed desktop's xterm, as the AI would, and reading what it
// reported: for the sandbox's attack tests.
import { execFile } from 'node:child_process';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LocalDesktop } from '../desktop/localDesktop.js';
import { waitForVisibleWindow } from './xWindows.js';

const run = promisify(execFile);

/** Types `line` into the desktop's xterm and waits until it has written `doneFile` in HOME. */
export async function typeInXterm(
  desktop: LocalDesktop,
  line: string,
  doneFile: string,
): Promise<void> {
  const xterm = await waitForVisibleWindow(desktop.env, 'xterm');
  await run('xdotool', ['windowactivate', '--sync', xterm], { env: desktop.env });
  await run(
    'xdotool',
    ['type', '--delay', '4', '--window', xterm, `${line}; echo ok > ~/${doneFile}\n`],
    { env: desktop.env },
  );
  const done = join(desktop.sandbox?.homeDir ?? '', doneFile);
  const deadline = Date.now() + 30_000;
  while (
    !(await lstat(done).then(
      () => true,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`the typed line did not finish (${done})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The value after `name=` in lines like `name=1` that the typed line writes. */
export const status = (report: string, name: string): string | undefined =>
  new RegExp(`^${name}=(.*)$`, 'm').exec(report)?.[1];
