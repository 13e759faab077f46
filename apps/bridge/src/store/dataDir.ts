// The data dir's safety: created 0700; an existing one of ours that group or others may read or
// enter is tightened to 0700 (a listing alone tells other users who has tokens, which desktops
// exist, when the audit last rolled); refused (DataDirError, saying which command fixes it) when
// the dir or a secret file in it belongs to another user or can be written by group or others —
// whoever can write there can swap the database, plant a token, or read what we keep — or when
// it cannot be tightened. Also owns SECRET_FILES (what counts as secret here) and restrictFile
// (0600 for our files).
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
const GROUP_OR_OTHER_ANY = 0o077;

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
 * Creates `dir` (mode 0700) when missing, or tightens it to 0700 when it is ours, then checks it
 * and every secret file present in it. `secretFiles` defaults to SECRET_FILES. Throws
 * DataDirError when something is unsafe.
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
  const verdict = judgeDataDir(dir, dirStat, process.getuid?.());
  if (verdict.action === 'refuse') throw new DataDirError(verdict.message);
  if (verdict.action === 'tighten') {
    try {
      await chmod(dir, 0o700);
    } catch (err) {
      throw new DataDirError(
        `The data dir ${dir} can be listed by ${describe(dirStat.mode, 0o070, 0o007)} (mode ${modeText(dirStat.mode)}), showing other users the names of what the bridge keeps, and the bridge could not change that (${errnoCode(err) ?? String(err)}). Run "chmod 700 ${shellQuote(dir)}" and start again.`,
      );
    }
  }
  for (const name of options.secretFiles ?? SECRET_FILES) {
    const path = join(dir, name);
    let fileStat;
    try {
      fileStat = await stat(path);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') continue;
      throw err;
    }
    const verdict = judge(path, fileStat, 'file', process.getuid?.());
    if (verdict.action === 'refuse') throw new DataDirError(verdict.message);
  }
}

/**
 * What prepareDataDir does with an existing data dir, from its owner and mode alone: use it,
 * tighten it to 0700 first (ours, but group or others may read or enter it), or refuse it (not
 * ours, or writable by others: what is in it may already have been replaced, so tightening now
 * would hide that).
 */
export type DataDirVerdict =
  { action: 'use' } | { action: 'tighten' } | { action: 'refuse'; message: string };

export function judgeDataDir(
  dir: string,
  st: { uid: number; mode: number },
  /** process.getuid?.(): undefined where there are no uids (Windows). */
  uid: number | undefined,
): DataDirVerdict {
  return judge(dir, st, 'dir', uid);
}

function judge(
  path: string,
  st: { uid: number; mode: number },
  what: 'dir' | 'file',
  uid: number | undefined,
): DataDirVerdict {
  // No uids on Windows: ownership and mode bits mean nothing there, so there is nothing to check.
  if (uid === undefined) return { action: 'use' };
  const label = what === 'dir' ? `The data dir ${path}` : `The file ${path} in the data dir`;
  if (st.uid !== uid) {
    return {
      action: 'refuse',
      message: `${label} is owned by uid ${st.uid}, not by you (uid ${uid}): another user could read or replace the people, tokens and audit log kept there. If it should be yours, run "chown ${whoAmI()} ${shellQuote(path)}" (as root); otherwise pass a data dir of your own (--data-dir).`,
    };
  }
  if ((st.mode & GROUP_OR_OTHER_WRITE) !== 0) {
    return {
      action: 'refuse',
      message: `${label} is writable by ${describe(st.mode, 0o020, 0o002)} (mode ${modeText(st.mode)}): other users could replace what the bridge keeps there. Run "chmod ${what === 'dir' ? '700' : '600'} ${shellQuote(path)}" and start again.`,
    };
  }
  // A secret file others may only read is left to whoever opens it (the database files are made
  // 0600 when opened, secret.key is refused then); behind a 0700 dir nobody else reaches it.
  if (what === 'dir' && (st.mode & GROUP_OR_OTHER_ANY) !== 0) return { action: 'tighten' };
  return { action: 'use' };
}

function modeText(mode: number): string {
  return (mode & 0o777).toString(8).padStart(3, '0');
}

/** The path as it can be pasted into a shell (quoted only when it needs to be). */
function shellQuote(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

/** Who the `groupBits` and `otherBits` of `mode` let in, in words. */
function describe(mode: number, groupBits: number, otherBits: number): string {
  const group = (mode & groupBits) !== 0;
  const others = (mode & otherBits) !== 0;
  return group && others ? 'group and others' : group ? 'its group' : 'others';
}

/** Makes a file the bridge created in the data dir readable and writable by us alone. */
export async function restrictFile(path: string): Promise<void> {
  await chmod(path, 0o600);
}
