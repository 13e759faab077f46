// Keeping recordings: how long and how much (the admin's retention settings), and which
// recordings go when a limit is passed. Pure: recordingLifecycle.ts measures, asks planRetention() what
// to do, and does it (deletes files and rows, audited; rotates a recording being written).
//
// The rules:
// - Age: a finished recording whose end is more than `maxAgeDays` ago is deleted.
// - Size, per desktop and for the whole store: while a desktop's recordings (or all of them)
//   take more than the cap, its oldest finished recording is deleted, then the next.
// - The recording being written is never deleted. When it alone passes a cap — or its desktop's
//   finished ones are all gone and the cap is still passed — it is rotated: ended there, and a
//   new recording of the same connection started, so the part that passed the cap is a finished
//   recording the next pass may delete. A recording is also rotated once it reaches half the
//   smallest size cap (so the cap always keeps at least half of its worth of history instead of
//   dropping a whole cap's worth at once), at MAX_PIECE_BYTES in any case (so the player can
//   load it), and, where age is limited, once it is a day old (so age can apply to it).
// - Free space: below `minFreeBytes` free on the recordings' disk, recordings stop writing (a gap
//   the windows are told about) until there is room again. Nothing is deleted for it: what else
//   fills a disk (a local desktop's own files, say) must not be able to push evidence out.
import { z } from 'zod';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
export const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionLimits {
  /** Finished recordings that ended longer ago than this are deleted; null: any age is kept. */
  maxAgeDays: number | null;
  /** All recordings together, at most (bytes of every file); null: no cap. */
  maxTotalBytes: number | null;
  /** One desktop's recordings together, at most; null: only the total's cap. */
  maxDesktopBytes: number | null;
  /** Recordings stop writing while the disk has less than this free (bytes; 0: never). */
  minFreeBytes: number;
}

/**
 * The defaults, and why:
 * - 30 days: long enough to look back over a month of autopilot (a person away for a holiday
 *   still finds last week's session), short enough that screens full of personal data do not
 *   pile up for years; the audit log, which names every action, is kept on its own setting.
 * - 10 GiB in all: about 95 hours of a typical office session (36 MB of picture and 70 MB of
 *   keyframes per hour, packages/recording/README.md) — weeks of a few desktops' daily use — and
 *   small enough for the disk of any machine that runs a bridge.
 * - 2 GiB per desktop: one desktop an AI keeps busy (heavy scrolling writes far more per hour
 *   than an office session) can take at most a fifth of the whole, so it cannot push the other
 *   desktops' recordings out; still a full working day of a typical session.
 * - 1 GiB kept free: recordings stop before the disk is full, so the store (SQLite in the same
 *   data dir, with the audit log) and everything else on the machine can still write.
 */
export const DEFAULT_RETENTION: RetentionLimits = {
  maxAgeDays: 30,
  maxTotalBytes: 10 * GiB,
  maxDesktopBytes: 2 * GiB,
  minFreeBytes: 1 * GiB,
};

/** The smallest size cap the settings API takes (a recording's files start at about 130 KiB). */
export const MIN_CAP_BYTES = 1 * MiB;
/**
 * A recording being written is rotated at this size at the most, whatever the caps: the browser's
 * player reads a recording whole (its picture file, as text), which a piece of gigabytes would
 * not survive; at the heavy-scroll rate measured here (bench --only recording, 482 kB/s in all)
 * this is about nine minutes, a typical office session's recording a couple of hours.
 */
export const MAX_PIECE_BYTES = 256 * MiB;
/** A recording being written is rotated once it is this old, whatever its size. */
export const ROTATE_AFTER_MS = DAY_MS;
/** A recording is not rotated for its size before it has run this long (a rotation rejoins). */
export const MIN_PIECE_MS = 5_000;

/** The settings API's form (snake_case, as the rest of /api/settings/recording). */
export const RetentionPatch = z.strictObject({
  max_age_days: z.number().int().min(1).max(36_500).nullable().optional(),
  max_total_bytes: z
    .number()
    .int()
    .min(MIN_CAP_BYTES)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .optional(),
  max_desktop_bytes: z
    .number()
    .int()
    .min(MIN_CAP_BYTES)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .optional(),
  min_free_bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
export type RetentionPatch = z.infer<typeof RetentionPatch>;

export interface RetentionView {
  max_age_days: number | null;
  max_total_bytes: number | null;
  max_desktop_bytes: number | null;
  min_free_bytes: number;
}

export function retentionView(limits: RetentionLimits): RetentionView {
  return {
    max_age_days: limits.maxAgeDays,
    max_total_bytes: limits.maxTotalBytes,
    max_desktop_bytes: limits.maxDesktopBytes,
    min_free_bytes: limits.minFreeBytes,
  };
}

/** Stored values read back: anything not of the right shape falls back to the default. */
export function limitsFrom(stored: unknown): RetentionLimits {
  const value =
    typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  const size = (v: unknown, fallback: number | null): number | null =>
    v === null
      ? null
      : typeof v === 'number' && Number.isSafeInteger(v) && v >= MIN_CAP_BYTES
        ? v
        : fallback;
  const age = value.max_age_days;
  const free = value.min_free_bytes;
  return {
    maxAgeDays:
      age === null
        ? null
        : typeof age === 'number' && Number.isInteger(age) && age >= 1
          ? age
          : DEFAULT_RETENTION.maxAgeDays,
    maxTotalBytes: size(value.max_total_bytes, DEFAULT_RETENTION.maxTotalBytes),
    maxDesktopBytes: size(value.max_desktop_bytes, DEFAULT_RETENTION.maxDesktopBytes),
    minFreeBytes:
      typeof free === 'number' && Number.isSafeInteger(free) && free >= 0
        ? free
        : DEFAULT_RETENTION.minFreeBytes,
  };
}

/** A recording as retention sees it. */
export interface RetentionItem {
  id: string;
  desktopId: string;
  startedAt: number;
  /** Null while it is being written (or a previous run left it open). */
  endedAt: number | null;
  /** Every file of it, in bytes. */
  bytes: number;
  /** Being written now: never deleted, rotated instead. */
  live: boolean;
}

export interface RetentionPlan {
  /** Finished recordings to delete, oldest first, and why. */
  remove: { item: RetentionItem; reason: string }[];
  /** Desktops whose recording being written is to be ended and started anew, and why. */
  rotate: { desktopId: string; reason: string }[];
}

/** The size at which a recording being written is rotated: half the smallest cap, at most MAX_PIECE_BYTES. */
export function rotationBytes(limits: RetentionLimits): number {
  const smallest = smallestCap(limits);
  return Math.min(MAX_PIECE_BYTES, Math.floor(smallest / 2));
}

/** The smallest size cap in force (Infinity: none). */
export function smallestCap(limits: RetentionLimits): number {
  const caps = [limits.maxTotalBytes, limits.maxDesktopBytes].filter(
    (c): c is number => c !== null,
  );
  return caps.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...caps);
}

/** Whether a recording being written should be rotated now, and why (undefined: not yet). */
export function rotationDue(
  live: { startedAt: number; bytes: number },
  limits: RetentionLimits,
  now: number,
  minPieceMs = MIN_PIECE_MS,
): string | undefined {
  const ran = now - live.startedAt;
  if (ran >= ROTATE_AFTER_MS && limits.maxAgeDays !== null)
    return 'it has been recording for a day';
  if (ran >= minPieceMs && live.bytes >= rotationBytes(limits))
    return live.bytes >= MAX_PIECE_BYTES
      ? `it reached ${formatBytes(live.bytes)}, the most one recording holds`
      : `it reached ${formatBytes(live.bytes)}, half the smallest size limit`;
  return undefined;
}

const byAge = (a: RetentionItem, b: RetentionItem): number =>
  a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function planRetention(
  items: readonly RetentionItem[],
  limits: RetentionLimits,
  now: number,
  minPieceMs = MIN_PIECE_MS,
): RetentionPlan {
  const remove: RetentionPlan['remove'] = [];
  const rotate = new Map<string, string>();
  const gone = new Set<string>();
  const drop = (item: RetentionItem, reason: string): void => {
    gone.add(item.id);
    remove.push({ item, reason });
  };
  const sorted = [...items].sort(byAge);

  if (limits.maxAgeDays !== null) {
    const before = now - limits.maxAgeDays * DAY_MS;
    for (const item of sorted)
      if (!item.live && (item.endedAt ?? item.startedAt) < before)
        drop(item, `older than ${limits.maxAgeDays} days`);
  }

  /** Deletes the oldest finished of `group` while it takes more than `cap`; else rotates. */
  const keepUnder = (group: RetentionItem[], cap: number, what: string): void => {
    let total = group.reduce((sum, i) => sum + (gone.has(i.id) ? 0 : i.bytes), 0);
    for (const item of group) {
      if (total <= cap) return;
      if (item.live || gone.has(item.id)) continue;
      drop(item, `${what} over ${formatBytes(cap)}`);
      total -= item.bytes;
    }
    if (total <= cap) return;
    // Only recordings being written are left, and they alone pass the cap: the largest first.
    const live = group.filter((i) => i.live).sort((a, b) => b.bytes - a.bytes);
    for (const item of live) {
      if (total <= cap) return;
      if (!rotate.has(item.desktopId))
        rotate.set(item.desktopId, `${what} over ${formatBytes(cap)} with this recording alone`);
      total -= item.bytes;
    }
  };

  if (limits.maxDesktopBytes !== null) {
    const desktops = new Map<string, RetentionItem[]>();
    for (const item of sorted) {
      const list = desktops.get(item.desktopId) ?? [];
      list.push(item);
      desktops.set(item.desktopId, list);
    }
    for (const group of desktops.values())
      keepUnder(group, limits.maxDesktopBytes, "the desktop's recordings");
  }
  if (limits.maxTotalBytes !== null) keepUnder(sorted, limits.maxTotalBytes, 'all recordings');

  for (const item of sorted) {
    if (!item.live || rotate.has(item.desktopId)) continue;
    const due = rotationDue(item, limits, now, minPieceMs);
    if (due !== undefined) rotate.set(item.desktopId, due);
  }
  return {
    remove,
    rotate: [...rotate].map(([desktopId, reason]) => ({ desktopId, reason })),
  };
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text =
    unit === 0 || value >= 100 ? String(Math.round(value)) : value.toFixed(1).replace(/\.0$/, '');
  return `${text} ${units[unit]}`;
}
