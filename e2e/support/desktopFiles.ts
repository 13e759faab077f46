// A file a program on the desktop writes, as the test must name it twice: inside the desktop
// (what is typed into its xterm) and on this machine (where the test reads it). A local desktop
// runs sandboxed with its own /tmp, so its files go to its HOME, which is the `home` folder of
// its work dir here (next to its X cookie); other desktops (an unsandboxed Xvnc, an xrdp session)
// share this machine's /tmp.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface DesktopFile {
  /** The path as the desktop's programs see it (type this). */
  inDesktop: string;
  /** The same file as this test process reads it. */
  onHost: string;
}

export function desktopFile(xEnv: NodeJS.ProcessEnv, name: string): DesktopFile {
  const workDir = dirname(xEnv.XAUTHORITY ?? '/nonexistent/x');
  const sandboxHome = join(workDir, 'home');
  if (existsSync(sandboxHome) && existsSync(join(workDir, 'rfb'))) {
    return { inDesktop: `/home/desktop/${name}`, onHost: join(sandboxHome, name) };
  }
  return { inDesktop: `/tmp/${name}`, onHost: `/tmp/${name}` };
}
