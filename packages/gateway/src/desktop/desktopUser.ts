// The unprivileged system user a sandboxed desktop's programs run as when the bridge is root
// and the desktop has no uid of its own (sandbox option `user`; the bridge's local desktop
// records each have one, apps/bridge desktopHomes.ts): made once with useradd if missing, shared by
// those desktops. Sharing is safe enough because each desktop also lives in its own bubblewrap
// sandbox (own pid, network, ipc and mount namespaces: one desktop can neither see nor signal
// another's processes or files).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const DESKTOP_USER = 'oc-desktop';

export interface DesktopUser {
  name: string;
  uid: number;
  gid: number;
}

let made: Promise<DesktopUser> | undefined;

/** The desktop user, made on first use. Only for root: nobody else may add users. */
export function ensureDesktopUser(): Promise<DesktopUser> {
  made ??= makeDesktopUser().catch((err: unknown) => {
    made = undefined; // let a later desktop try again
    throw err;
  });
  return made;
}

async function makeDesktopUser(): Promise<DesktopUser> {
  const existing = await lookUp(DESKTOP_USER);
  if (existing !== undefined) return existing;
  const added = await run('useradd', [
    '--system',
    '--no-create-home',
    '--home-dir',
    '/nonexistent',
    '--shell',
    '/usr/sbin/nologin',
    '--user-group',
    DESKTOP_USER,
  ]).then(
    () => undefined,
    (err: unknown) => err,
  );
  // Another bridge (or test worker) may have made it meanwhile: useradd then fails, lookUp works.
  const user = await lookUp(DESKTOP_USER);
  if (user !== undefined) return user;
  throw new Error(
    `Could not create the system user ${DESKTOP_USER} that sandboxed desktops run as (${added instanceof Error ? added.message : 'unknown error'}). Create it: useradd --system --no-create-home --shell /usr/sbin/nologin ${DESKTOP_USER}`,
  );
}

async function lookUp(name: string): Promise<DesktopUser | undefined> {
  const out = await run('getent', ['passwd', name]).then(
    (result) => result.stdout,
    () => '',
  );
  const [, , uid, gid] = out.trim().split(':');
  if (uid === undefined || gid === undefined) return undefined;
  return { name, uid: Number(uid), gid: Number(gid) };
}
