// The next release version from the repository's tags: tags `vYYYY.MM.DD[.N]` are releases;
// the first release of a day is YYYY.MM.DD, each further one that day adds .1, .2, … (the tool
// spec's "Versioning Schema"). The day is today in UTC unless given (tests, a re-run of a
// release). Other tags are ignored. Run: `npm run version:next [-- --date YYYY-MM-DD]`.
import { execFileSync } from 'node:child_process';
import {
  calVerOfDay,
  compareCalVer,
  formatCalVer,
  parseCalVer,
  type CalVer,
} from '../../apps/bridge/src/calver.js';

/** The release versions among `tags`, oldest first. */
export function releaseVersions(tags: readonly string[]): CalVer[] {
  return tags
    .filter((tag) => tag.startsWith('v'))
    .map((tag) => parseCalVer(tag))
    .filter((version): version is CalVer => version !== undefined)
    .sort(compareCalVer);
}

/** The version the next release on `day` gets, given the tags that exist. */
export function nextVersion(tags: readonly string[], day: Date): CalVer {
  const base = calVerOfDay(day);
  const released = releaseVersions(tags);
  const newest = released.at(-1);
  if (newest !== undefined && compareCalVer({ ...newest, build: 0 }, base) > 0) {
    throw new Error(
      `The newest release tag v${formatCalVer(newest)} is later than ${formatCalVer(base)}: check the clock, or pass the release day with --date YYYY-MM-DD.`,
    );
  }
  const sameDay = released.filter((v) => compareCalVer({ ...v, build: 0 }, base) === 0);
  const last = sameDay.at(-1);
  return last === undefined ? base : { ...base, build: last.build + 1 };
}

/** Every tag of the git repository at `cwd`. */
export function gitTags(cwd: string): string[] {
  const out = execFileSync('git', ['tag', '--list'], { cwd, encoding: 'utf8' });
  return out.split('\n').filter((line) => line !== '');
}

/** Reads `--date YYYY-MM-DD` (a real day, taken as UTC); today when absent. */
export function parseDay(text: string | undefined, now: () => Date = () => new Date()): Date {
  if (text === undefined) return now();
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const day = match ? parseCalVer(`${match[1]}.${match[2]}.${match[3]}`) : undefined;
  if (day === undefined) throw new Error(`--date expects a day as YYYY-MM-DD, got "${text}".`);
  return new Date(Date.UTC(day.year, day.month - 1, day.day));
}
