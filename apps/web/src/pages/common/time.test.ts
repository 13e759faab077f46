import { describe, expect, it } from 'vitest';
import { clockTime, dayEnd, dayStart, formatDateTime, retryClockTime } from './time.js';

describe('time', () => {
  it('shows HH:MM on the 24-hour clock', () => {
    expect(clockTime(new Date(2026, 10, 24, 9, 5, 59).getTime())).toBe('09:05');
    expect(clockTime(new Date(2026, 10, 24, 23, 0).getTime())).toBe('23:00');
  });

  it('rounds the end of a wait up to the next whole minute', () => {
    const now = new Date(2026, 10, 24, 14, 0, 10).getTime();
    expect(retryClockTime(5 * 60_000, now)).toBe('14:06');
    expect(retryClockTime(50_000, now)).toBe('14:01');
    expect(retryClockTime(0, new Date(2026, 10, 24, 14, 0, 0).getTime())).toBe('14:00');
  });

  it('turns date fields into the first and last millisecond of the local day', () => {
    expect(dayStart('2026-03-05')).toBe(new Date(2026, 2, 5).getTime());
    expect(dayEnd('2026-03-05')).toBe(new Date(2026, 2, 6).getTime() - 1);
    expect(dayStart('')).toBeNull();
    expect(dayStart('2026-02-31')).toBeNull();
    expect(dayEnd('5 March')).toBeNull();
  });

  it('shows a missing moment as a dash', () => {
    expect(formatDateTime(null)).toBe('—');
    expect(formatDateTime(0)).not.toBe('—');
  });
});
