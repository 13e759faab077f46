// The desktop_policy table: each desktop's mode and standing permissions as its person in charge
// left them (one row per desktop, migration 0005). Two upserts of their own columns, so a mode
// change and a standing permission written at the same moment by two bridges cannot undo each
// other. A write naming a desktop or person that is gone writes nothing (false): the policy of a
// removed desktop has nowhere to go.
import type { RepoContext } from './context.js';
import { constraintViolation } from './errors.js';
import type { DesktopPolicyRecord, DesktopPolicyRepo } from './types.js';

export function desktopPolicyRepo({ db, now }: RepoContext): DesktopPolicyRepo {
  /** Runs an upsert; a foreign-key violation (desktop or person gone) is false, not an error. */
  const write = async (run: () => Promise<unknown>): Promise<boolean> => {
    try {
      await run();
      return true;
    } catch (err) {
      if (constraintViolation(err)?.kind === 'foreign_key') return false;
      throw err;
    }
  };
  return {
    async get(desktopId) {
      const row = await db
        .selectFrom('desktop_policy')
        .selectAll()
        .where('desktop_id', '=', desktopId)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const record: DesktopPolicyRecord = {
        desktopId: row.desktop_id,
        personId: row.person_id,
        mode: row.mode,
        modeMetadata: parseObject(row.mode_metadata),
        standing: parseJson(row.standing),
        standingCounter: Number(row.standing_counter),
        updatedAt: row.updated_at,
      };
      return record;
    },

    setMode(desktopId, personId, mode, metadata) {
      const at = now();
      const set = {
        person_id: personId,
        mode,
        mode_metadata: metadata === undefined ? null : JSON.stringify(metadata),
        updated_at: at,
      };
      return write(() =>
        db
          .insertInto('desktop_policy')
          .values({ desktop_id: desktopId, ...set })
          .onConflict((oc) => oc.column('desktop_id').doUpdateSet(set))
          .execute(),
      );
    },

    setStanding(desktopId, personId, standing, counter) {
      const at = now();
      const set = {
        person_id: personId,
        standing: JSON.stringify(standing),
        standing_counter: counter,
        updated_at: at,
      };
      return write(() =>
        db
          .insertInto('desktop_policy')
          .values({ desktop_id: desktopId, mode: null, mode_metadata: null, ...set })
          .onConflict((oc) => oc.column('desktop_id').doUpdateSet(set))
          .execute(),
      );
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const value = parseJson(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
