// The e2e stack on each of the three ways the bridge reaches a desktop (Playwright projects
// named after them, see playwright.config.ts): `gateway-xvnc` is `serve --desktop local` as
// always; `guacd-xvnc` and `guacd-xrdp` start the desktop and a real guacd in the test process
// (apps/bridge/src/testing/desktopPaths.ts) and run `serve --guacd … --vnc …` / `--rdp …`, with
// the X side of that desktop (for RDP, the xrdp session's Xorg display) as the stack's xEnv.
import {
  startDesktopPath,
  type DesktopPathName,
} from '../../apps/bridge/src/testing/desktopPaths.js';
import { startStack, type RunningStack } from './bridgeProcess.js';

export async function startPathStack(
  name: DesktopPathName,
): Promise<RunningStack | { skip: string }> {
  if (name === 'gateway-xvnc') return startStack();
  const path = await startDesktopPath(name);
  if ('skip' in path) return path;
  try {
    if (path.serve === undefined) throw new Error(`The ${name} path gives no serve flags.`);
    // Logged in before the bridge starts, so X-side checks have a display from the start.
    const xEnv = await path.startSession();
    const stack = await startStack({ source: path.serve.args, env: path.serve.env });
    return {
      ...stack,
      display: xEnv.DISPLAY ?? '',
      xEnv,
      stop: async () => {
        await stack.stop();
        await path.stop();
      },
    };
  } catch (err) {
    await path.stop();
    throw err;
  }
}
