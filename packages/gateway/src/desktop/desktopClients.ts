// The X clients a local desktop runs beside Xvnc (localDesktop.ts starts them, or the sandbox's
// launcher does): the xterm's command line, and the wait until the window manager has taken over
// the screen, so that nothing is started while it could still be left unmapped.
import { execFile, type ChildProcess } from 'node:child_process';

export function xtermArgs(xterm: true | { command: string[]; geometry?: string }): string[] {
  // waitForWM off: Xt otherwise waits up to 5 s for the window manager's first answer.
  const args = ['-fa', 'DejaVu Sans Mono', '-fs', '11', '-xrm', 'XTerm*waitForWM: false'];
  if (typeof xterm === 'object') {
    return [...args, '-geometry', xterm.geometry ?? '100x30+40+40', '-e', ...xterm.command];
  }
  // A plain interactive bash without startup files: the person's .bashrc can take seconds
  // (seen: pyenv rehash), and keys typed meanwhile are lost, so the desktop would not be
  // ready when it says it is.
  return [...args, '-geometry', '100x30+40+40', '-e', 'bash', '--noprofile', '--norc', '-i'];
}

/**
 * Resolves once a window manager has set _NET_SUPPORTING_WM_CHECK on the root window, or when
 * it has exited or not appeared within 5 s (the desktop still works without one).
 */
export async function waitForWindowManager(
  env: NodeJS.ProcessEnv,
  wm: ChildProcess,
): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && wm.exitCode === null && wm.signalCode === null) {
    const announced = await new Promise<boolean>((resolve) => {
      execFile('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], { env, timeout: 2000 }, (err, out) =>
        resolve(err === null && out.includes('window id')),
      );
    });
    if (announced) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
