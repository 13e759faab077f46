// The recordings table (one row per session recording; its files are in the data dir's
// recordings folder under the row's id, or on an S3 store under the bucket and prefix it names) and each desktop's recording setting (desktops.recording).
import type { RepoContext } from './context.js';
import type {
  RecordingGap,
  RecordingLocation,
  RecordingMode,
  RecordingRecord,
  RecordingRepo,
} from './types.js';

const MODES: readonly string[] = ['off', 'on', 'person'] satisfies RecordingMode[];
const LOCATIONS: readonly string[] = ['local', 's3'] satisfies RecordingLocation[];

export function recordingRepo({ db }: RepoContext): RecordingRepo {
  return {
    async add(recording) {
      await db
        .insertInto('recordings')
        .values({
          id: recording.id,
          desktop_id: recording.desktopId,
          owner_id: recording.ownerId,
          started_at: recording.startedAt,
          ended_at: null,
        })
        .execute();
    },

    async update(id, patch) {
      await db
        .updateTable('recordings')
        .set({
          ...(patch.endedAt === undefined ? {} : { ended_at: patch.endedAt }),
          ...(patch.bytes === undefined ? {} : { bytes: patch.bytes }),
          ...(patch.gaps === undefined ? {} : { gaps: JSON.stringify(patch.gaps) }),
          ...(patch.storedBytes === undefined ? {} : { stored_bytes: patch.storedBytes }),
          ...(patch.location === undefined ? {} : { location: patch.location }),
          ...(patch.s3Bucket === undefined ? {} : { s3_bucket: patch.s3Bucket }),
          ...(patch.s3Prefix === undefined ? {} : { s3_prefix: patch.s3Prefix }),
        })
        .where('id', '=', id)
        .execute();
    },

    async byId(id) {
      const row = await db
        .selectFrom('recordings')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row === undefined ? undefined : toRecord(row);
    },

    async list() {
      const rows = await db
        .selectFrom('recordings')
        .selectAll()
        .orderBy('started_at', 'desc')
        .orderBy('id')
        .execute();
      return rows.map(toRecord);
    },

    async remove(id) {
      const result = await db.deleteFrom('recordings').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async desktopMode(desktopId) {
      const row = await db
        .selectFrom('desktops')
        .select('recording')
        .where('id', '=', desktopId)
        .executeTakeFirst();
      const mode = row?.recording ?? null;
      return mode !== null && MODES.includes(mode) ? (mode as RecordingMode) : null;
    },

    async setDesktopMode(desktopId, mode) {
      const result = await db
        .updateTable('desktops')
        .set({ recording: mode })
        .where('id', '=', desktopId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}

function toRecord(row: {
  id: string;
  desktop_id: string;
  owner_id: string | null;
  started_at: number;
  ended_at: number | null;
  bytes: number;
  gaps: string;
  stored_bytes: number;
  location: string;
  s3_bucket: string | null;
  s3_prefix: string | null;
}): RecordingRecord {
  return {
    id: row.id,
    desktopId: row.desktop_id,
    ownerId: row.owner_id,
    startedAt: Number(row.started_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
    bytes: Number(row.bytes),
    gaps: parseGaps(row.gaps),
    storedBytes: Number(row.stored_bytes),
    location: (LOCATIONS.includes(row.location) ? row.location : 'local') as RecordingLocation,
    s3Bucket: row.s3_bucket,
    s3Prefix: row.s3_prefix,
  };
}

function parseGaps(text: string): RecordingGap[] {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.flatMap((g: unknown) => {
      if (typeof g !== 'object' || g === null) return [];
      const { from, to, reason } = g as Record<string, unknown>;
      return typeof from === 'number' && typeof to === 'number' && typeof reason === 'string'
        ? [{ from, to, reason }]
        : [];
    });
  } catch {
    return [];
  }
}
