// What a previous run, or another bridge of the site, left behind in this bridge's recordings:
// rows still open because the bridge stopped without finishing them (closed here with their end,
// size and gaps as the files say), and files in the data dir that no row lists (a start cut short
// before its row was written, or a recording deleted through another bridge, which could delete
// its row only). Keeping (keeping.ts) calls these at start and, for the files, at each pass.
import { readdir, stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { RecordingReader, recordingPaths } from '@overlay-companion/recording';
import type { RecordingRecord, Store } from '../store/types.js';
import type { KeptFiles } from './storage/keptFiles.js';
import { recordingIdOf } from './storage/recordingFiles.js';

/** Where the leftovers are: the rows, the data dir's recordings folder and the kept files. */
export interface LeftoverPlaces {
  store: Store;
  dir: string;
  logger: Logger;
  kept: KeptFiles;
}

/**
 * Closes the rows a previous run left open (the bridge stopped without finishing them): their
 * end, size and gaps as the files say. A row being written now (`isLive`), kept elsewhere, or
 * whose files are not in this data dir is left as it is.
 */
export async function closeRowsLeftOpen(
  places: LeftoverPlaces,
  rows: readonly RecordingRecord[],
  isLive: (id: string) => boolean,
): Promise<void> {
  const { store, dir, kept } = places;
  for (const row of rows) {
    if (isLive(row.id) || row.location !== 'local' || row.endedAt !== null) continue;
    // Its files are not here: another bridge of the site (sharing the store, with a data dir
    // of its own) is writing it, and closes it itself; or they are gone, and nothing can say
    // where it ended.
    if (!(await kept.local.has(row.id))) continue;
    const reader = await RecordingReader.open(dir, row.id).catch(() => undefined);
    const end = Math.max(reader?.end ?? row.startedAt, row.startedAt);
    await store.recordings.update(row.id, {
      endedAt: end,
      bytes: await stat(recordingPaths(dir, row.id).recording).then(
        (s) => s.size,
        () => 0,
      ),
      gaps: (reader?.gaps ?? []).map((g) => ({
        from: g.from,
        to: g.to ?? end,
        reason: g.reason,
      })),
      storedBytes: await kept.local.bytes(row.id),
    });
  }
}

/**
 * Removes the files in the folder that no row lists: a start cut short before its row was
 * written, or a recording deleted through another bridge of the site (which could delete its row
 * only). One listed meanwhile (a recording that began and ended since `listed` was read) is kept,
 * and so is one whose files changed less than `minAgeMs` ago (a writer creates its files before
 * its row is written: a pass between the two must not take them for a deleted recording's).
 */
export async function removeUnlistedFiles(
  places: LeftoverPlaces,
  listed: ReadonlySet<string>,
  isLive: (id: string) => boolean,
  minAgeMs = 0,
): Promise<void> {
  const names = await readdir(places.dir).catch(() => [] as string[]);
  const orphans = new Set<string>();
  for (const name of names) {
    const id = recordingIdOf(name);
    if (id !== undefined && !listed.has(id) && !isLive(id)) orphans.add(id);
  }
  for (const id of orphans) {
    if (isLive(id)) continue;
    if (minAgeMs > 0 && Date.now() - (await lastChange(places.dir, id)) < minAgeMs) continue;
    if ((await places.store.recordings.byId(id)) !== undefined) continue;
    await places.kept.local.remove(id);
    places.logger.info({ recording: id }, 'removed the files of a recording never listed');
  }
}

/** When any file of the recording last changed (ms; 0 when none is there). */
async function lastChange(dir: string, id: string): Promise<number> {
  const times = await Promise.all(
    Object.values(recordingPaths(dir, id)).map((p) =>
      stat(p).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    ),
  );
  return Math.max(0, ...times);
}
