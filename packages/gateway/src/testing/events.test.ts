// eventually(): a check that says "not yet" (false, undefined or null) is polled again until it
// says something else — the rule a check written as `() => done` relies on to wait at all.
import { describe, expect, it } from 'vitest';
import { eventually } from './events.js';

/** A check that answers `notYet` for its first `calls` calls, then `done`. */
function after<T>(
  calls: number,
  notYet: unknown,
  done: T,
): { check: () => T; count: () => number } {
  let n = 0;
  return {
    check: () => (++n > calls ? done : (notYet as T)),
    count: () => n,
  };
}

describe('eventually', () => {
  it.each([false, undefined, null])('waits while the check returns %s', async (notYet) => {
    const probe = after(3, notYet, true);
    await expect(eventually('the thing', probe.check)).resolves.toBe(true);
    expect(probe.count()).toBe(4);
  });

  it('returns the data a check finds', async () => {
    const probe = after(2, undefined, { id: 'x' });
    await expect(eventually('the row', () => Promise.resolve(probe.check()))).resolves.toEqual({
      id: 'x',
    });
  });

  it('counts 0 and the empty string as found (data, not "not yet")', async () => {
    await expect(eventually('a count', () => 0)).resolves.toBe(0);
    await expect(eventually('a text', () => '')).resolves.toBe('');
  });

  it('polls again after a check throws, and says the last error when it gives up', async () => {
    let n = 0;
    const found = await eventually('the file', () => {
      if (++n < 3) throw new Error('ENOENT');
      return 'content';
    });
    expect(found).toBe('content');
    await expect(
      eventually(
        'the never-written file',
        () => {
          throw new Error('ENOENT: no such file');
        },
        120,
      ),
    ).rejects.toThrow(
      /the never-written file did not happen within 120 ms \(ENOENT: no such file\)/,
    );
  });

  it('fails when the check never stops saying false', async () => {
    await expect(eventually('done', () => false, 120)).rejects.toThrow(/done did not happen/);
  });
});
