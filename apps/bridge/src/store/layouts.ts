// The monitor_layouts table: each person's named monitor layouts (the multi-monitor issue),
// stored as JSON text; the API validates them against MonitorLayout before they get here.
import type { RepoContext } from './context.js';
import { noSuchPerson, withConflicts } from './errors.js';
import type { LayoutRecord, LayoutRepo } from './types.js';

export function layoutRepo({ db }: RepoContext): LayoutRepo {
  return {
    async list(personId: string): Promise<LayoutRecord[]> {
      const rows = await db
        .selectFrom('monitor_layouts')
        .selectAll()
        .where('person_id', '=', personId)
        .orderBy('name')
        .execute();
      return rows.map((row) => ({
        personId: row.person_id,
        name: row.name,
        layout: JSON.parse(row.layout) as unknown,
        updatedAt: row.updated_at,
      }));
    },

    async put(record: LayoutRecord): Promise<void> {
      const layout = JSON.stringify(record.layout) as string | undefined;
      if (layout === undefined) {
        throw new TypeError(
          `layouts.put("${record.name}"): the layout is not JSON-serializable; pass the parsed MonitorLayout.`,
        );
      }
      await withConflicts(
        () =>
          db
            .insertInto('monitor_layouts')
            .values({
              person_id: record.personId,
              name: record.name,
              layout,
              updated_at: record.updatedAt,
            })
            .onConflict((oc) =>
              oc
                .columns(['person_id', 'name'])
                .doUpdateSet({ layout, updated_at: record.updatedAt }),
            )
            .execute(),
        (violation) =>
          violation.kind === 'foreign_key' ? noSuchPerson(record.personId) : undefined,
      );
    },

    async remove(personId: string, name: string): Promise<boolean> {
      const result = await db
        .deleteFrom('monitor_layouts')
        .where('person_id', '=', personId)
        .where('name', '=', name)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
