// Bridge-wide settings an admin changes (/api/settings), and the limits they bound. Each
// person's monitor layout is in layout.ts.
import { z } from 'zod';

export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

/**
 * Desktops a member (not an admin) may own: enough for the fleet view's twenty agents, few
 * enough that one person cannot exhaust the machine with local desktops (each an X server).
 */
export const MAX_DESKTOPS_PER_MEMBER = 20;

/**
 * Local desktops of one member's that may run at once, unless an admin sets another number: each
 * is an X server with its programs, up to 2 GiB of memory and 512 MiB of memory-backed /tmp and
 * /dev/shm (the gateway's sandbox), so twenty would ask more than a 24 GiB machine has.
 */
export const DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS = 4;

export const BridgeSettings = z.strictObject({
  /** Audit entries older than this many days are deleted. */
  audit_retention_days: z.int().min(1).max(3650),
  /** Members may add desktops of their own (admins always may). */
  people_may_add_desktops: z.boolean(),
  /**
   * Local desktops owned by one member that may run at once; starting one more is refused until
   * one stops. Desktops owned by admins are not counted.
   */
  member_running_local_desktops: z.int().min(1).max(MAX_DESKTOPS_PER_MEMBER),
});
export type BridgeSettings = z.infer<typeof BridgeSettings>;

export const BridgeSettingsPatch = BridgeSettings.partial();
