// The person's choice to be asked for approvals through their MCP client (elicitation) when no
// window of theirs is open: a nullable column like every toggle (null = the default, off).
import type { Kysely, Migration } from 'kysely';

export function clientApprovalsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('permissions')
        .addColumn('approvals_through_client', 'integer')
        .execute();
    },
  };
}
