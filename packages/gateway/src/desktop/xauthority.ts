// The X authority cookie that keeps a local desktop's X display to its creator. Without one,
// Xvnc lets every local user's X clients in (checked: `su nobody -c 'xdotool
// getmouselocation'` worked), and an X client can read the screen and type into it. The cookie
// (MIT-MAGIC-COOKIE-1, 128 random bits) lives in a 0600 file in the desktop's 0700 work dir;
// Xvnc reads it through `-auth`, and X clients find it through XAUTHORITY.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod } from 'node:fs/promises';

export function newCookie(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Replaces the file's entries with one for `display` (e.g. ':7'). Commands go to `xauth` on
 * stdin, never as arguments: a process's arguments are readable by every local user.
 * `previous` names an entry to drop first (the server needs an entry before its display number
 * is known; Xvnc accepts any cookie in the file, whatever display it is filed under).
 */
export async function writeXauthority(
  file: string,
  display: string,
  cookie: string,
  previous?: string,
): Promise<void> {
  const commands = [
    ...(previous === undefined ? [] : [`remove ${previous}`]),
    `add ${display} MIT-MAGIC-COOKIE-1 ${cookie}`,
    '',
  ].join('\n');
  await new Promise<void>((resolve, reject) => {
    const child = execFile(
      'xauth',
      ['-q', '-f', file, 'source', '-'],
      { timeout: 10_000 },
      (err, _out, stderr) =>
        err === null
          ? resolve()
          : reject(
              new Error(
                `xauth could not write ${file} (${err.message.split('\n')[0] ?? ''}${stderr ? `: ${stderr.trim()}` : ''}). Install it: apt-get install -y xauth`,
              ),
            ),
    );
    child.stdin?.end(commands);
  });
  await chmod(file, 0o600);
}
