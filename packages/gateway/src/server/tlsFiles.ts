// TLS files that operators renew (a certificate and its key, a CA) without restarting what reads
// them: the gateway serving TLS (--tls-cert/--tls-key/--tls-client-ca) and the bridges dialling
// the pool (OC_POOL_CA, OC_POOL_CLIENT_CERT/KEY). Their paths are polled with stat, not watched
// with inotify: a renewal replaces files by rename or through a symlink (certbot's live/, a
// Kubernetes or Podman secret's ..data), which a watch on the old inode never sees. A change is
// acted on once the files have stayed the same for one more poll, so a certificate and its key
// written a moment apart are read together; what to do with them (and what to do when they are
// not usable: keep the credentials in force and say why) is the caller's.
import { stat } from 'node:fs/promises';

/** How often the files are looked at: a renewal is in force within about two of these. */
export const TLS_FILE_POLL_MS = 10_000;

export interface TlsFilesWatch {
  /** Stops polling. */
  close(): void;
}

/**
 * Calls `changed` when any of `paths` changes (content, replacement, appearance or removal) and
 * has then stayed as it is for one poll. `changed` runs one at a time; its errors are its own.
 */
export function watchTlsFiles(
  paths: readonly string[],
  changed: () => Promise<void> | void,
  intervalMs: number = TLS_FILE_POLL_MS,
): TlsFilesWatch {
  let loaded: string | undefined;
  let seen: string | undefined;
  let busy = false;
  let closed = false;
  const look = async (): Promise<void> => {
    if (busy || closed) return;
    busy = true;
    try {
      const now = await signature(paths);
      if (loaded === undefined) loaded = now;
      else if (now !== loaded && now === seen) {
        loaded = now;
        await changed();
      }
      seen = now;
    } finally {
      busy = false;
    }
  };
  void look();
  const timer = setInterval(() => void look().catch(() => undefined), intervalMs);
  // Never what keeps a process alive.
  timer.unref();
  return {
    close: () => {
      closed = true;
      clearInterval(timer);
    },
  };
}

/** What the files are now: each one's inode, size and change times (or that it is missing). */
async function signature(paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map((path) =>
      stat(path).then(
        (s) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`,
        (err: NodeJS.ErrnoException) => `missing:${err.code ?? ''}`,
      ),
    ),
  );
  return parts.join('|');
}
