// Times as the pages show them: local clock times ("try again at 14:05"), how long ago, dates and times of
// table rows, and the day boundaries of the audit filter's date fields. Pure, so each is tested.

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** HH:MM on the local 24-hour clock. */
export function clockTime(ms: number): string {
  const date = new Date(ms);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * When a wait of `retryAfterMs` from `now` is over, as HH:MM, rounded up to the minute: "try
 * again at 14:05" must never name a minute that is still inside the wait.
 */
export function retryClockTime(retryAfterMs: number, now: number): string {
  const minute = 60_000;
  return clockTime(Math.ceil((now + Math.max(0, retryAfterMs)) / minute) * minute);
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const DATE_TIME_SECONDS = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'medium',
});

/** A moment in a table row, in the person's locale ("24 Nov 2026, 10:12"); null as "—". */
export function formatDateTime(ms: number | null, seconds = false): string {
  if (ms === null) return '—';
  return (seconds ? DATE_TIME_SECONDS : DATE_TIME).format(new Date(ms));
}

/** How long ago `at` was, in words: "just now", "12 s ago", "3 min ago", "2 h ago". */
export function ago(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
}

/** ISO form of a moment, for <time dateTime>. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function localDay(value: string): Date | null {
  const match = DAY.exec(value);
  if (!match) return null;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(y, m - 1, d);
  // new Date(2026, 1, 31) rolls over to March: such a day does not exist.
  return date.getFullYear() === y && date.getMonth() === m - 1 && date.getDate() === d
    ? date
    : null;
}

/** First millisecond of a date field's day (local time); null for '' or a bad date. */
export function dayStart(value: string): number | null {
  return localDay(value)?.getTime() ?? null;
}

/** Last millisecond of a date field's day (local time, so DST days are 23 or 25 hours). */
export function dayEnd(value: string): number | null {
  const day = localDay(value);
  if (day === null) return null;
  return new Date(day.getFullYear(), day.getMonth(), day.getDate() + 1).getTime() - 1;
}
