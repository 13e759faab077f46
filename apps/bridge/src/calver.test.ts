// The release version forms: the spec's examples, refusals of what is not a real day, the npm
// form for every day both ways, and that semver's order of the npm form is the dates' order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareCalVer,
  formatCalVer,
  fromNpmVersion,
  parseCalVer,
  toNpmVersion,
  type CalVer,
} from './calver.js';

const calver = fc
  .record({
    date: fc.date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('9999-12-31T00:00:00Z'),
      noInvalidDate: true,
    }),
    build: fc.nat({ max: 999 }),
  })
  .map(({ date, build }): CalVer => ({
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    build,
  }));

/** semver precedence of plain MAJOR.MINOR.PATCH versions. */
function semverCompare(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i += 1) {
    const d = (x?.[i] ?? 0) - (y?.[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

describe('calver', () => {
  it('reads and prints the tool spec examples', () => {
    for (const text of ['2024.08.18', '2024.08.18.1', '2024.08.18.2', '2024.12.25']) {
      expect(formatCalVer(parseCalVer(text)!)).toBe(text);
    }
    expect(parseCalVer('v2026.11.25.3')).toEqual({ year: 2026, month: 11, day: 25, build: 3 });
  });

  it('refuses what is not a release version', () => {
    for (const text of [
      '2026.13.01',
      '2026.02.30',
      '2026.1.5',
      '2026.01.05.0',
      '2026.01.05.01',
      '0.1.0',
      '2026.01.05-1',
      '2026.01.05.',
      'x2026.01.05',
    ]) {
      expect(parseCalVer(text), text).toBeUndefined();
    }
  });

  it('gives valid semver in package.json form: 2026.11.25 is 2026.1125.0, 2026.01.05.2 is 2026.105.2', () => {
    expect(toNpmVersion(parseCalVer('2026.11.25')!)).toBe('2026.1125.0');
    expect(toNpmVersion(parseCalVer('2026.01.05.2')!)).toBe('2026.105.2');
    expect(fromNpmVersion('0.1.0')).toBeUndefined();
    expect(fromNpmVersion('2026.1301.0')).toBeUndefined();
    expect(fromNpmVersion('2026.0105.0')).toBeUndefined();
  });

  it('maps every day both ways, and semver orders the npm form like the dates', () => {
    fc.assert(
      fc.property(calver, calver, (a, b) => {
        const npm = toNpmVersion(a);
        expect(npm).toMatch(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/);
        expect(fromNpmVersion(npm)).toEqual(a);
        expect(parseCalVer(formatCalVer(a))).toEqual(a);
        expect(Math.sign(semverCompare(npm, toNpmVersion(b)))).toBe(Math.sign(compareCalVer(a, b)));
      }),
    );
  });
});
