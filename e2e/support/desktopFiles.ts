// A file a program on the desktop writes, as the test must name it twice: inside the desktop
// (what is typed into its xterm) and on this machine (where the test reads it). A local desktop
// runs sandboxed with its own /tmp, so its files go to its HOME: the bridge says where that is
// kept on this machine (`HOME=` on its "Desktop:" line; a kept HOME is in the data dir's
// desktop-homes, a first run's fresh one is `home` in its work dir next to its X cookie). Other
// desktops (an unsandboxed Xvnc, an xrdp session) share this machine's /tmp.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SANDBOX_HOME } from '../../packages/gateway/src/desktop/sandbox.js';

/** The xEnv entry bridgeProcess sets to the host path of the desktop's HOME. */
export const DESKTOP_HOME_ON_HOST = 'OC_E2E_DESKTOP_HOME';

export interface DesktopFile {
  /** The path as the desktop's programs see it (type this). */
  inDesktop: string;
  /** The same file as this test process reads it. */
  onHost: string;
}

export function desktopFile(xEnv: NodeJS.ProcessEnv, name: string): DesktopFile {
  const printedHome = xEnv[DESKTOP_HOME_ON_HOST];
  if (printedHome !== undefined) {
    return { inDesktop: `${SANDBOX_HOME}/${name}`, onHost: join(printedHome, name) };
  }
  const workDir = dirname(xEnv.XAUTHORITY ?? '/nonexistent/x');
  const sandboxHome = join(workDir, 'home');
  if (existsSync(sandboxHome) && existsSync(join(workDir, 'rfb'))) {
    return { inDesktop: `${SANDBOX_HOME}/${name}`, onHost: join(sandboxHome, name) };
  }
  return { inDesktop: `/tmp/${name}`, onHost: `/tmp/${name}` };
}
