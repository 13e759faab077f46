// The settings table: bridge-wide settings as key → JSON text (retention, OpenID options chosen
// in the UI, …). Values are whatever JSON the caller stores; callers validate what they read.
import type { RepoContext } from './context.js';
import type { SettingsRepo } from './types.js';

export function settingsRepo({ db, now }: RepoContext): SettingsRepo {
  return {
    async get(key: string): Promise<unknown> {
      const row = await db
        .selectFrom('settings')
        .select('value')
        .where('key', '=', key)
        .executeTakeFirst();
      return row === undefined ? undefined : (JSON.parse(row.value) as unknown);
    },

    async set(key: string, value: unknown): Promise<void> {
      const text = JSON.stringify(value) as string | undefined;
      if (text === undefined) {
        // JSON has no undefined (nor functions or symbols): refuse rather than store "null".
        throw new TypeError(
          `settings.set("${key}"): the value is not JSON-serializable; store null or a JSON value instead.`,
        );
      }
      const at = now();
      await db
        .insertInto('settings')
        .values({ key, value: text, updated_at: at })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value: text, updated_at: at }))
        .execute();
    },
  };
}
