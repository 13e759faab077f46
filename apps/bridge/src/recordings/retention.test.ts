// Retention's rules on their own (retention.ts): which recordings go — past the age, then the
// oldest while a desktop's or all recordings pass their cap — never the one being written, which
// is rotated instead when it alone passes a cap, when it reaches half the smallest cap, or after
// a day; and the stored settings read back with the defaults where they are missing or bad.
import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  DEFAULT_RETENTION,
  MIN_CAP_BYTES,
  RetentionPatch,
  formatBytes,
  limitsFrom,
  planRetention,
  rotationBytes,
  rotationDue,
  type RetentionItem,
  type RetentionLimits,
} from './retention.js';

const MiB = 1024 * 1024;
const NOW = 1_800_000_000_000;
const NO_LIMITS: RetentionLimits = {
  maxAgeDays: null,
  maxTotalBytes: null,
  maxDesktopBytes: null,
  minFreeBytes: 0,
};

let n = 0;
function rec(desktopId: string, startedAt: number, mib: number, live = false): RetentionItem {
  n++;
  return {
    id: `r${String(n).padStart(3, '0')}`,
    desktopId,
    startedAt,
    endedAt: live ? null : startedAt + 60_000,
    bytes: mib * MiB,
    live,
  };
}

const ids = (plan: ReturnType<typeof planRetention>) => plan.remove.map((r) => r.item.id);

describe('planRetention', () => {
  it('deletes finished recordings that ended more than max age ago, never one being written', () => {
    const old = rec('a', NOW - 40 * DAY_MS, 1);
    const edge = rec('a', NOW - 30 * DAY_MS - 120_000, 1); // ended 30 days + 1 min ago
    const young = rec('a', NOW - 29 * DAY_MS, 1);
    const liveOld = rec('b', NOW - 31 * DAY_MS, 1, true);
    const plan = planRetention([young, liveOld, edge, old], { ...NO_LIMITS, maxAgeDays: 30 }, NOW);
    expect(ids(plan)).toEqual([old.id, edge.id]);
    expect(plan.remove[0]?.reason).toBe('older than 30 days');
    // The one being written for more than a day is rotated, so its old part can go later.
    expect(plan.rotate).toEqual([{ desktopId: 'b', reason: 'it has been recording for a day' }]);
  });

  it("keeps each desktop under its cap, oldest first; other desktops' recordings stay", () => {
    const a1 = rec('a', NOW - 5000, 3);
    const a2 = rec('a', NOW - 4000, 3);
    const a3 = rec('a', NOW - 3000, 3);
    const b1 = rec('b', NOW - 6000, 3);
    const plan = planRetention([a3, b1, a1, a2], { ...NO_LIMITS, maxDesktopBytes: 7 * MiB }, NOW);
    expect(ids(plan)).toEqual([a1.id]);
    expect(plan.remove[0]?.reason).toBe("the desktop's recordings over 7 MiB");
    expect(plan.rotate).toEqual([]);
  });

  it('keeps all recordings under the total cap, oldest first across desktops', () => {
    const items = [
      rec('a', NOW - 9000, 4),
      rec('b', NOW - 8000, 4),
      rec('a', NOW - 7000, 4),
      rec('b', NOW - 6000, 4),
    ];
    const plan = planRetention(items, { ...NO_LIMITS, maxTotalBytes: 9 * MiB }, NOW);
    expect(ids(plan)).toEqual([items[0]!.id, items[1]!.id]);
    expect(plan.remove.every((r) => r.reason === 'all recordings over 9 MiB')).toBe(true);
  });

  it('applies age, then the desktop cap, then the total, counting nothing twice', () => {
    const ancient = rec('a', NOW - 100 * DAY_MS, 5);
    const a1 = rec('a', NOW - 3 * DAY_MS, 5);
    const a2 = rec('a', NOW - 2 * DAY_MS, 5);
    const b1 = rec('b', NOW - 1 * DAY_MS, 5);
    const limits = {
      ...NO_LIMITS,
      maxAgeDays: 30,
      maxDesktopBytes: 6 * MiB,
      maxTotalBytes: 10 * MiB,
    };
    const plan = planRetention([ancient, a1, a2, b1], limits, NOW);
    // ancient by age; a1 for a's cap (a2 alone is under); then a2 + b1 = 10 MiB: under the total.
    expect(ids(plan)).toEqual([ancient.id, a1.id]);
  });

  it('rotates the recording being written when it alone passes a cap (it is never deleted)', () => {
    const finished = rec('a', NOW - 60_000, 2);
    const live = rec('a', NOW - 30_000, 9, true);
    const plan = planRetention([finished, live], { ...NO_LIMITS, maxDesktopBytes: 8 * MiB }, NOW);
    expect(ids(plan)).toEqual([finished.id]);
    expect(plan.rotate).toEqual([
      { desktopId: 'a', reason: "the desktop's recordings over 8 MiB with this recording alone" },
    ]);
  });

  it('over the total with only recordings being written: the largest are rotated until under', () => {
    const items = [
      rec('a', NOW - 9000, 3, true),
      rec('b', NOW - 8000, 6, true),
      rec('c', NOW - 7000, 2, true),
    ];
    const plan = planRetention(items, { ...NO_LIMITS, maxTotalBytes: 8 * MiB }, NOW, 60_000);
    expect(plan.remove).toEqual([]);
    expect(plan.rotate.map((r) => r.desktopId)).toEqual(['b']);
  });

  it('rotates at half the smallest cap once the recording has run the shortest piece', () => {
    const limits = { ...NO_LIMITS, maxTotalBytes: 100 * MiB, maxDesktopBytes: 10 * MiB };
    expect(rotationBytes(limits)).toBe(5 * MiB);
    // However large the caps, a recording the player can still load.
    expect(rotationBytes(NO_LIMITS)).toBe(256 * MiB);
    expect(rotationBytes({ ...NO_LIMITS, maxTotalBytes: 100 * 1024 * MiB })).toBe(256 * MiB);
    expect(rotationDue({ startedAt: NOW - 10_000, bytes: 256 * MiB }, NO_LIMITS, NOW)).toBe(
      'it reached 256 MiB, the most one recording holds',
    );
    expect(rotationDue({ startedAt: NOW - 10_000, bytes: 5 * MiB }, limits, NOW)).toBe(
      'it reached 5 MiB, half the smallest size limit',
    );
    expect(
      rotationDue({ startedAt: NOW - 10_000, bytes: 5 * MiB - 1 }, limits, NOW),
    ).toBeUndefined();
    // Younger than the shortest piece (5 s by default): not yet, a rotation rejoins the desktop.
    expect(rotationDue({ startedAt: NOW - 1_000, bytes: 6 * MiB }, limits, NOW)).toBeUndefined();
    expect(rotationDue({ startedAt: NOW - 1_000, bytes: 6 * MiB }, limits, NOW, 0)).toBeDefined();
    expect(
      rotationDue({ startedAt: NOW - DAY_MS, bytes: 0 }, { ...NO_LIMITS, maxAgeDays: 1 }, NOW),
    ).toBe('it has been recording for a day');
    // Kept whatever their age: no need to cut a long session into days.
    expect(rotationDue({ startedAt: NOW - 9 * DAY_MS, bytes: 0 }, NO_LIMITS, NOW)).toBeUndefined();
  });

  it('with no limits, keeps everything (the recording being written still rotates at its most)', () => {
    const items = [rec('a', 0, 50_000), rec('a', 1, 200, true)];
    expect(planRetention(items, NO_LIMITS, NOW)).toEqual({ remove: [], rotate: [] });
    const big = [rec('a', 0, 50_000), rec('a', 1, 300, true)];
    expect(planRetention(big, NO_LIMITS, NOW)).toEqual({
      remove: [],
      rotate: [{ desktopId: 'a', reason: 'it reached 300 MiB, the most one recording holds' }],
    });
  });
});

describe('retention settings', () => {
  it('reads the defaults where nothing (or nonsense) is stored, and null as no limit', () => {
    expect(limitsFrom(undefined)).toEqual(DEFAULT_RETENTION);
    expect(DEFAULT_RETENTION).toEqual({
      maxAgeDays: 30,
      maxTotalBytes: 10 * 1024 * MiB,
      maxDesktopBytes: 2 * 1024 * MiB,
      minFreeBytes: 1024 * MiB,
    });
    expect(
      limitsFrom({
        max_age_days: 'x',
        max_total_bytes: 5,
        max_desktop_bytes: -1,
        min_free_bytes: 1.5,
      }),
    ).toEqual(DEFAULT_RETENTION);
    expect(
      limitsFrom({
        max_age_days: null,
        max_total_bytes: null,
        max_desktop_bytes: 3 * MiB,
        min_free_bytes: 0,
      }),
    ).toEqual({ maxAgeDays: null, maxTotalBytes: null, maxDesktopBytes: 3 * MiB, minFreeBytes: 0 });
  });

  it('the API takes whole days from 1 and caps from 1 MiB, null for none, nothing unknown', () => {
    expect(
      RetentionPatch.safeParse({ max_age_days: 7, max_total_bytes: MIN_CAP_BYTES }).success,
    ).toBe(true);
    expect(RetentionPatch.safeParse({ max_age_days: null, max_desktop_bytes: null }).success).toBe(
      true,
    );
    for (const bad of [
      { max_age_days: 0 },
      { max_age_days: 1.5 },
      { max_total_bytes: MIN_CAP_BYTES - 1 },
      { max_desktop_bytes: '1GiB' },
      { min_free_bytes: -1 },
      { min_free_bytes: null },
      { keep: 'forever' },
    ])
      expect(RetentionPatch.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('formats sizes for people', () => {
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(10 * 1024 * MiB)).toBe('10 GiB');
    expect(formatBytes(150 * MiB)).toBe('150 MiB');
  });
});
