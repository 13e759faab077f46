// The project's date-based release versions, `YYYY.MM.DD[.N]` (the tool spec's "Versioning
// Schema": the first release of a day is YYYY.MM.DD, the next ones .1, .2, …), and their npm
// form. npm needs semver — three numbers without leading zeros — so package.json carries
// `YYYY.MMDD.N` (2026.11.25 → 2026.1125.0, 2026.01.05.2 → 2026.105.2): always valid, and semver
// orders it exactly like the dates. One mapping both ways, used by the bridge (`--version`, the
// MCP server info) and by the release scripts (scripts/release/).

export interface CalVer {
  year: number;
  month: number;
  day: number;
  /** 0 for a day's first release (printed without the suffix), then 1, 2, … */
  build: number;
}

const CALVER = /^(\d{4})\.(\d{2})\.(\d{2})(?:\.([1-9]\d*))?$/;
const NPM_FORM = /^(\d{4})\.([1-9]\d{0,3})\.(0|[1-9]\d*)$/;

function realDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

function make(year: number, month: number, day: number, build: number): CalVer | undefined {
  return year >= 1970 && realDate(year, month, day) ? { year, month, day, build } : undefined;
}

/** Reads `YYYY.MM.DD[.N]` (a `v` in front, as in tags, is allowed); undefined if it is not one. */
export function parseCalVer(text: string): CalVer | undefined {
  const match = CALVER.exec(text.startsWith('v') ? text.slice(1) : text);
  if (!match) return undefined;
  const [, year, month, day, build] = match;
  return make(Number(year), Number(month), Number(day), build === undefined ? 0 : Number(build));
}

export function formatCalVer(version: CalVer): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const base = `${version.year}.${two(version.month)}.${two(version.day)}`;
  return version.build === 0 ? base : `${base}.${version.build}`;
}

/** The package.json form: `YYYY.MMDD.N`. */
export function toNpmVersion(version: CalVer): string {
  return `${version.year}.${version.month * 100 + version.day}.${version.build}`;
}

/** Reads the package.json form back; undefined for anything else (e.g. an old 0.1.0). */
export function fromNpmVersion(text: string): CalVer | undefined {
  const match = NPM_FORM.exec(text);
  if (!match) return undefined;
  const [, year, monthDay, build] = match;
  const md = Number(monthDay);
  return make(Number(year), Math.floor(md / 100), md % 100, Number(build));
}

/** Negative, zero or positive as `a` is older than, the same as or newer than `b`. */
export function compareCalVer(a: CalVer, b: CalVer): number {
  return a.year - b.year || a.month - b.month || a.day - b.day || a.build - b.build;
}

/** The calendar day of `date` in UTC, as the version of that day's first release. */
export function calVerOfDay(date: Date): CalVer {
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    build: 0,
  };
}
