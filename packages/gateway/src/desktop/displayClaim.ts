// Claims an X display number on the host for a sandboxed desktop. Inside its sandbox Xvnc has
// its own /tmp and network namespace, so it would take :0 every time and nobody outside could
// reach it; instead we pick the number here, the way X servers do (an exclusive lock file
// /tmp/.X<n>-lock holding a live pid, which every X server respects), and make the display
// reachable from outside with a symlink /tmp/.X11-unix/X<n> to the socket Xvnc creates in the
// desktop's bind-mounted X socket dir. X clients find it as DISPLAY=:<n>; they still need the
// cookie, and the symlink leads into the desktop's 0700 work dir, which other users cannot enter.
//
// X clients try the abstract socket @/tmp/.X11-unix/X<n> first. Xvnc binds that one in the
// sandbox's own network namespace, so on the host the name would be free for any local user to
// bind, receive our clients and their cookie, and show them a fake screen. We hold it ourselves
// and relay each connection to the real socket.
import { lstat, mkdir, open, readFile, symlink, unlink } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';

export const X11_DIR = '/tmp/.X11-unix';
/** Above the displays people and other tools usually take. */
const FIRST = 20;
const LAST = 999;

export interface DisplayClaim {
  number: number;
  display: string;
  /** Removes the symlink and the lock file; safe to call twice. */
  release(): Promise<void>;
}

/** Claims a free display whose socket link points at `socketFor(n)`. */
export async function claimDisplay(socketFor: (n: number) => string): Promise<DisplayClaim> {
  await mkdir(X11_DIR, { recursive: true, mode: 0o1777 });
  const abstract = await abstractX11Sockets();
  for (let n = FIRST; n <= LAST; n++) {
    if (abstract.has(n)) continue;
    const lock = `/tmp/.X${String(n)}-lock`;
    const link = `${X11_DIR}/X${String(n)}`;
    try {
      const file = await open(lock, 'wx', 0o444);
      // The format X servers write and read: the pid in 10 columns and a newline.
      await file.writeFile(`${String(process.pid).padStart(10)}\n`);
      await file.close();
    } catch {
      continue; // taken (or stale: X servers clean those up themselves)
    }
    let holder: AbstractHolder | undefined;
    try {
      if (await exists(link)) throw new Error('in use');
      holder = await holdAbstractName(`\0${link}`, socketFor(n));
      await symlink(socketFor(n), link);
    } catch {
      await holder?.close();
      await unlink(lock).catch(() => undefined);
      continue;
    }
    let released: Promise<void> | undefined;
    return {
      number: n,
      display: `:${String(n)}`,
      release: () => {
        released ??= (async () => {
          await holder.close();
          await unlink(link).catch(() => undefined);
          await unlink(lock).catch(() => undefined);
        })();
        return released;
      },
    };
  }
  throw new Error(
    `No free X display between :${String(FIRST)} and :${String(LAST)}. Stop some desktops.`,
  );
}

interface AbstractHolder {
  close(): Promise<void>;
}

/** Listens on the abstract socket `name` and relays every connection to the socket at `target`. */
async function holdAbstractName(name: string, target: string): Promise<AbstractHolder> {
  const open = new Set<Socket>();
  const server: Server = createServer(function relayToDesktop(client) {
    const desktop = connect(target);
    for (const socket of [client, desktop]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    }
    client.on('error', () => desktop.destroy());
    desktop.on('error', () => client.destroy());
    client.pipe(desktop).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(name, () => resolve());
  });
  server.unref(); // a forgotten desktop must not keep the process alive
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Displays whose abstract socket (@/tmp/.X11-unix/X<n>) is bound in our network namespace. */
async function abstractX11Sockets(): Promise<Set<number>> {
  const table = await readFile('/proc/net/unix', 'utf8').catch(() => '');
  const numbers = new Set<number>();
  for (const match of table.matchAll(/@\/tmp\/\.X11-unix\/X(\d+)$/gm)) {
    numbers.add(Number(match[1]));
  }
  return numbers;
}
