// Bridge-wide settings an admin changes (/api/settings). Each person's monitor layout is in
// layout.ts.
import { z } from 'zod';

export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

export const BridgeSettings = z.strictObject({
  /** Audit entries older than this many days are deleted. */
  audit_retention_days: z.int().min(1).max(3650),
  /** Members may add desktops of their own (admins always may). */
  people_may_add_desktops: z.boolean(),
});
export type BridgeSettings = z.infer<typeof BridgeSettings>;

export const BridgeSettingsPatch = BridgeSettings.partial();
