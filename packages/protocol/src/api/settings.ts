// Bridge-wide settings an admin changes (/api/settings), and monitor layouts people keep
// (/api/layouts, used by the multi-monitor viewer).
import { z } from 'zod';
import { EpochMs } from '../common.js';

export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

export const BridgeSettings = z.strictObject({
  /** Audit entries older than this many days are deleted. */
  audit_retention_days: z.int().min(1).max(3650),
});
export type BridgeSettings = z.infer<typeof BridgeSettings>;

export const BridgeSettingsPatch = BridgeSettings.partial();

export const LayoutName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9 ._-]+$/, { error: 'may contain only letters, digits, spaces and . _ -' });

/** A monitor layout: named rectangles of the desktop, one per physical monitor. */
export const MonitorLayout = z.strictObject({
  monitors: z
    .array(
      z.strictObject({
        x: z.int().min(0).max(32767),
        y: z.int().min(0).max(32767),
        width: z.int().min(1).max(32767),
        height: z.int().min(1).max(32767),
        label: z.string().max(64).optional(),
      }),
    )
    .min(1)
    .max(16),
});
export type MonitorLayout = z.infer<typeof MonitorLayout>;

export const LayoutView = z.object({
  name: z.string(),
  layout: MonitorLayout,
  updated_at: EpochMs,
});
export const LayoutList = z.object({ layouts: z.array(LayoutView) });
