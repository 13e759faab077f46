// A local desktop's transfer folder as the bridge touches it: list, write a file into it and read
// one out, streaming, never more than a chunk in memory. The folder belongs to the desktop's own
// user — the AI drives that user from inside the desktop and can plant anything there (symlinks
// to the host's files, FIFOs, hard links, a symlink in place of the folder itself) — while the
// bridge runs as root. So every step goes through a handle, never a path twice:
// - the folder is opened with O_DIRECTORY|O_NOFOLLOW (a symlink in its place is refused) and must
//   belong to the desktop's user; every name is then looked up inside that open folder through
//   /proc/self/fd/<fd>/<name> (the kernel resolves the fd to the folder opened, not to whatever
//   its path names by then), with O_NOFOLLOW on the name;
// - a file is written under a fresh partial name (O_CREAT|O_EXCL: never into something already
//   there), owned by the desktop's user, then linked to its real name (link() fails on any name
//   already taken, symlink or not, so nothing of theirs is replaced) and the partial name
//   removed; a cancelled or failed write removes the partial file;
// - a file is read only when, opened without following a symlink and without blocking (a FIFO
//   would hang the open), it is a regular file of the desktop's user with a single link.
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import {
  link,
  lstat,
  mkdir,
  open,
  readdir,
  stat,
  statfs,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  binaryBytesText,
  fileNameProblem,
  PARTIAL_PREFIX,
  type TransferFile,
} from '@overlay-companion/protocol';

const { O_DIRECTORY, O_NOFOLLOW, O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NONBLOCK } = constants;

/** Why a transfer could not happen, with the HTTP status that says so and a sentence to show. */
export class TransferError extends Error {
  override name = 'TransferError';
  constructor(
    readonly status: 400 | 404 | 408 | 409 | 413 | 500 | 507,
    message: string,
  ) {
    super(message);
  }
}

export interface TransferFolderOptions {
  /** Host path of the folder (created inside `parent` when missing). */
  path: string;
  /** The desktop's user: the folder and everything written into it belong to them. */
  uid: number;
  gid: number;
  /** Space that must stay free on the folder's filesystem after a write. */
  reserveBytes: number;
  /**
   * Most bytes the folder may hold after an upload (everything in it, counted by the blocks it
   * takes, subfolders too, plus uploads under way into it); absent: only the free space counts.
   */
  quotaBytes?: number | undefined;
  /** Most files and folders counted for the quota (default MAX_COUNTED_ENTRIES; tests lower it). */
  quotaMaxEntries?: number | undefined;
}

/** A written or read file: its name, size and SHA-256 (hex). */
export interface TransferredFile {
  name: string;
  size: number;
  sha256: string;
}

/** Bytes of uploads under way, per filesystem (st_dev), for the free-space check. */
const claimed = new Map<number, number>();
/** Bytes of uploads under way, per folder ("dev:ino"), for the quota check. */
const claimedInFolder = new Map<string, number>();

export class TransferFolder {
  constructor(private readonly options: TransferFolderOptions) {}

  /** The regular files in the folder, by name (partial files, links and folders are not shown). */
  async list(): Promise<TransferFile[]> {
    return this.withFolder(async (dir) => {
      const files: TransferFile[] = [];
      for (const name of await readdir(dir)) {
        if (name.startsWith(PARTIAL_PREFIX) || fileNameProblem(name) !== undefined) continue;
        const info = await lstat(join(dir, name)).catch(() => undefined);
        if (info?.isFile() !== true || !this.isTheirs(info)) continue;
        files.push({ name, size: info.size, modified_at: Math.round(info.mtimeMs) });
      }
      return files.sort((a, b) => a.name.localeCompare(b.name));
    });
  }

  /**
   * Writes `body` (exactly `size` bytes) as `name`. `signal` aborting (the person cancelled, the
   * connection dropped) or anything failing leaves no file behind.
   */
  async write(
    name: string,
    size: number,
    body: Readable,
    signal?: AbortSignal,
  ): Promise<TransferredFile> {
    checkName(name);
    return this.withFolder(async (dir) => {
      if (await exists(join(dir, name)))
        throw new TransferError(
          409,
          `"${name}" is already in the desktop's transfer folder: rename your file or delete theirs first.`,
        );
      const release = await this.claimSpace(dir, size);
      try {
        return await this.writeNew(dir, name, size, body, signal);
      } finally {
        release();
      }
    });
  }

  /**
   * Claims `size` bytes of the folder's filesystem for an upload, or refuses (507) when the free
   * space less the reserve and less the uploads still under way there cannot hold it, or the
   * folder's quota less what it holds and the uploads under way into it cannot. The check
   * and the claim happen with no await between, so two uploads cannot both count on one space.
   */
  private async claimSpace(dir: string, size: number): Promise<() => void> {
    const { dev, ino } = await stat(dir);
    const space = await statfs(dir);
    const { quotaBytes } = this.options;
    const used =
      quotaBytes === undefined
        ? 0
        : await bytesIn(dir, this.options.quotaMaxEntries ?? MAX_COUNTED_ENTRIES);
    // No await from here to the claims: the checks and the claims are one step (see above).
    const pending = claimed.get(dev) ?? 0;
    const usable = space.bavail * space.bsize - pending - this.options.reserveBytes;
    if (usable < size)
      throw new TransferError(
        507,
        `The desktop has too little free space for ${binaryBytesText(size)} (${binaryBytesText(Math.max(0, usable))} usable): free some space on it first.`,
      );
    const folderKey = `${dev}:${ino}`;
    const pendingHere = claimedInFolder.get(folderKey) ?? 0;
    if (quotaBytes !== undefined && used + pendingHere + size > quotaBytes)
      throw new TransferError(
        507,
        `The desktop's transfer folder may hold ${binaryBytesText(quotaBytes)} and has ${binaryBytesText(Math.max(0, quotaBytes - used - pendingHere))} left, too little for ${binaryBytesText(size)}: delete files from it on the desktop first.`,
      );
    claimed.set(dev, pending + size);
    claimedInFolder.set(folderKey, pendingHere + size);
    return () => {
      release(claimed, dev, size);
      release(claimedInFolder, folderKey, size);
    };
  }

  /** Writes a new file under a partial name, then links it to `name` (see the header). */
  private async writeNew(
    dir: string,
    name: string,
    size: number,
    body: Readable,
    signal: AbortSignal | undefined,
  ): Promise<TransferredFile> {
    const partial = join(dir, `${PARTIAL_PREFIX}${randomBytes(9).toString('hex')}`);
    const file = await open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      await file.chown(this.options.uid, this.options.gid);
      const hash = createHash('sha256');
      let written = 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          written += chunk.length;
          if (written > size)
            return done(new TransferError(400, `More than the announced ${size} bytes arrived.`));
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(body, count, fileSink(file), signal === undefined ? {} : { signal });
      if (written !== size)
        throw new TransferError(
          400,
          `The upload ended after ${written} of ${size} bytes; send the file again.`,
        );
      await file.chmod(0o644);
      await file.close();
      await link(partial, join(dir, name)).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'EEXIST'
          ? new TransferError(
              409,
              `"${name}" appeared in the transfer folder meanwhile: rename your file.`,
            )
          : err;
      });
      return { name, size, sha256: hash.digest('hex') };
    } finally {
      await file.close().catch(() => undefined);
      // Done: its real name links the file now. Failed or cancelled: nothing of it may stay.
      await unlink(partial).catch(() => undefined);
    }
  }

  /**
   * Opens `name` for reading: its size and a stream of its bytes (the folder is closed once the
   * file is open; the stream owns the file). Refuses anything but a regular file of theirs.
   */
  async read(name: string): Promise<{ size: number; stream: Readable }> {
    checkName(name);
    return this.withFolder(async (dir) => {
      const file = await open(join(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch(
        (err: NodeJS.ErrnoException) => {
          throw err.code === 'ENOENT'
            ? new TransferError(
                404,
                `"${name}" is not in the desktop's transfer folder; reload the list.`,
              )
            : err.code === 'ELOOP'
              ? new TransferError(400, `"${name}" is a symbolic link; only plain files are sent.`)
              : err;
        },
      );
      const info = await file.stat();
      if (!info.isFile() || !this.isTheirs(info) || info.nlink !== 1) {
        await file.close();
        throw new TransferError(
          400,
          `"${name}" is not a plain file of the desktop's own (a folder, link, device or someone else's file); only plain files are sent.`,
        );
      }
      return { size: info.size, stream: file.createReadStream({ highWaterMark: 256 * 1024 }) };
    });
  }

  private isTheirs(info: { uid: number }): boolean {
    return info.uid === this.options.uid;
  }

  /** Runs `use` with the open folder as a path that names it by handle. */
  private async withFolder<T>(use: (dir: string) => Promise<T>): Promise<T> {
    const folder = await this.openFolder();
    try {
      return await use(`/proc/self/fd/${folder.fd}`);
    } finally {
      await folder.close();
    }
  }

  private async openFolder(): Promise<FileHandle> {
    const { path, uid, gid } = this.options;
    const made = await mkdir(path, { mode: 0o755 }).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') return false;
        throw err;
      },
    );
    const folder = await open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch(
      (err: NodeJS.ErrnoException) => {
        throw err.code === 'ELOOP' || err.code === 'ENOTDIR'
          ? new TransferError(
              409,
              `The desktop's transfer folder is not a folder (something on the desktop replaced it with a link or a file); remove it there and try again.`,
            )
          : err;
      },
    );
    try {
      if (made) await folder.chown(uid, gid);
      const info = await folder.stat();
      if (!this.isTheirs(info))
        throw new TransferError(
          409,
          `The desktop's transfer folder does not belong to the desktop's user; remove it on the desktop and try again.`,
        );
      return folder;
    } catch (err) {
      await folder.close();
      throw err;
    }
  }
}

function release<K>(claims: Map<K, number>, key: K, size: number): void {
  const left = (claims.get(key) ?? size) - size;
  if (left > 0) claims.set(key, left);
  else claims.delete(key);
}

/** Most entries counted for a quota (about 20 µs each); a folder holding more refuses uploads. */
export const MAX_COUNTED_ENTRIES = 100_000;

/**
 * The bytes the folder's contents take: each entry's size or the blocks it takes on disk,
 * whichever is more, walked without following a link; an entry that vanishes counts nothing.
 * A folder of more than `maxEntries` entries is refused rather than walked on.
 */
async function bytesIn(dir: string, maxEntries: number, seen = { entries: 0 }): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    seen.entries += 1;
    if (seen.entries > maxEntries)
      throw new TransferError(
        507,
        `The desktop's transfer folder holds more than ${maxEntries} files and folders, too many to count against its quota: delete some on the desktop first.`,
      );
    const path = join(dir, entry.name);
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined) continue;
    total += Math.max(info.blocks * 512, info.isFile() ? info.size : 0);
    if (info.isDirectory()) total += await bytesIn(path, maxEntries, seen);
  }
  return total;
}

function checkName(name: string): void {
  const problem = fileNameProblem(name);
  if (problem !== undefined) throw new TransferError(400, problem);
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
}

/** Writes to an open file handle without closing it (the caller renames it after). */
function fileSink(file: FileHandle): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      file.write(chunk).then(() => done(), done);
    },
  });
}
