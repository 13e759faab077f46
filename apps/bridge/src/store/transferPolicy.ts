// Each desktop's "others may transfer files" choice (desktops.transfer_others_by, migration
// 0008): read on every transfer check, never cached, so every bridge of a site answers from the
// one database. It holds only while the person who made it is in charge: the read compares it
// with the person in charge now, and the write happens only while the writer is in charge, in the
// same statement (a charge moving at that moment cannot be overtaken by a late "on").
import { sql } from 'kysely';
import type { RepoContext } from './context.js';
import type { TransferPolicyRepo } from './types.js';

export function transferPolicyRepo({ db }: RepoContext): TransferPolicyRepo {
  const inCharge = sql<string>`coalesce(in_charge_id, owner_id)`;
  return {
    async othersMay(desktopId) {
      const row = await db
        .selectFrom('desktops')
        .select('transfer_others_by')
        .where('id', '=', desktopId)
        .where('transfer_others_by', '=', inCharge)
        .executeTakeFirst();
      return row !== undefined;
    },

    async set(desktopId, byPersonId, othersMay) {
      const result = await db
        .updateTable('desktops')
        .set({ transfer_others_by: othersMay ? byPersonId : null })
        .where('id', '=', desktopId)
        .where(inCharge, '=', byPersonId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}
