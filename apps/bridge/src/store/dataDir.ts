// The data dir's safety: created 0700, and refused (DataDirError, saying which command fixes
// it) when the dir or a secret file in it belongs to another user or can be written by group or
// others — whoever can write there can swap the database, plant a token, or read what we keep.
// Also owns SECRET_FILES (what counts as secret here) and restrictFile (0600 for our files).
import { chmod, mkdir, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { StartupError } from '../errors.js';

/** The SQLite database inside the data dir. */
export const DATABASE_FILE = 'overlay-companion.db';

/** The key material desktop credentials are sealed with, when OC_SECRET_KEY is not set. */
export const SECRET_KEY_FILE = 'secret.key';

/**
 * Files in the data dir that hold secrets or data only the bridge's user may touch. Add every
 * file the bridge keeps in the data dir here, so the start-up check covers it.
 */
export const SECRET_FILES: readonly string[] = [
  DATABASE_FILE,
  `${DATABASE_FILE}-wal`,
  `${DATABASE_FILE}-shm`,
  // The MCP bearer token earlier bridges generated here: still a secret while it exists.
  'mcp-token',
  // The key desktop credentials are sealed with (desktops/credentials.ts) unless OC_SECRET_KEY.
  SECRET_KEY_FILE,
];

/**
 * The data dir (or a file in it) is not safe to use; the message says what to run. A
 * StartupError, so the CLI treats it like any other reason the bridge cannot start.
 */
export class DataDirError extends StartupError {
  override name = 'DataDirError';
}

const GROUP_OR_OTHER_WRITE = 0o022;

function whoAmI(): string {
  try {
    return userInfo().username;
  } catch {
    // A uid without a passwd entry (some containers): chown accepts the number.
    return String(process.getuid?.());
  }
}

function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Creates `dir` (mode 0700) when missing, then checks it and every secret file present in it.
 * `secretFiles` defaults to SECRET_FILES. Throws DataDirError when something is unsafe.
 */
export async function prepareDataDir(
  dir: string,
  options: { secretFiles?: readonly string[] } = {},
): Promise<void> {
  try {
    // recursive: parents are created too (e.g. ~/.local/share); mode is still masked by the
    // umask, hence the chmod of the leaf right after, which only we can have created.
    const created = await mkdir(dir, { recursive: true, mode: 0o700 });
    if (created !== undefined) await chmod(dir, 0o700);
  } catch (err) {
    // EEXIST: something that is not a directory is there; the check below says so.
    if (errnoCode(err) !== 'EEXIST') {
      throw new DataDirError(
        `Cannot create the data dir ${dir} (${errnoCode(err) ?? String(err)}): create it yourself with "mkdir -m 700 ${shellQuote(dir)}", or pass another --data-dir.`,
      );
    }
  }
  const dirStat = await stat(dir);
  if (!dirStat.isDirectory()) {
    throw new DataDirError(
      `The data dir ${dir} exists but is not a directory: move it away, or pass another --data-dir.`,
    );
  }
  checkSafe(dir, dirStat, 'dir');
  for (const name of options.secretFiles ?? SECRET_FILES) {
    const path = join(dir, name);
    let fileStat;
    try {
      fileStat = await stat(path);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') continue;
      throw err;
    }
    checkSafe(path, fileStat, 'file');
  }
}

function checkSafe(path: string, st: { uid: number; mode: number }, what: 'dir' | 'file'): void {
  const uid = process.getuid?.();
  // No uids on Windows: ownership and mode bits mean nothing there, so there is nothing to check.
  if (uid === undefined) return;
  const label = what === 'dir' ? `The data dir ${path}` : `The file ${path} in the data dir`;
  if (st.uid !== uid) {
    throw new DataDirError(
      `${label} is owned by uid ${st.uid}, not by you (uid ${uid}): another user could read or replace the people, tokens and audit log kept there. If it should be yours, run "chown ${whoAmI()} ${shellQuote(path)}" (as root); otherwise pass a data dir of your own (--data-dir).`,
    );
  }
  if ((st.mode & GROUP_OR_OTHER_WRITE) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(3, '0');
    throw new DataDirError(
      `${label} is writable by ${describeWriters(st.mode)} (mode ${mode}): other users could replace what the bridge keeps there. Run "chmod ${what === 'dir' ? '700' : '600'} ${shellQuote(path)}" and start again.`,
    );
  }
}

/** The path as it can be pasted into a shell (quoted only when it needs to be). */
function shellQuote(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

function describeWriters(mode: number): string {
  const group = (mode & 0o020) !== 0;
  const others = (mode & 0o002) !== 0;
  return group && others ? 'group and others' : group ? 'its group' : 'others';
}

/** Makes a file the bridge created in the data dir readable and writable by us alone. */
export async function restrictFile(path: string): Promise<void> {
  await chmod(path, 0o600);
}
