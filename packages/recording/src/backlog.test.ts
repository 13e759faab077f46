// The writer's bounded queue: items are worked off in order, one at a time, also when the work
// waits; beyond `max` waiting, push() refuses; once halted, what waits is dropped; a failing item
// is reported and ends that run of work.
import { describe, expect, it } from 'vitest';
import { Backlog } from './backlog.js';

describe('Backlog', () => {
  it('works items off in order, one at a time, off the caller’s turn', async () => {
    const done: number[] = [];
    let running = 0;
    let most = 0;
    const backlog = new Backlog<number>(
      10,
      (n) => {
        if (n % 2 === 0) {
          done.push(n);
          return undefined;
        }
        running++;
        most = Math.max(most, running);
        return new Promise<void>((resolve) =>
          setTimeout(() => {
            done.push(n);
            running--;
            resolve();
          }, 1),
        );
      },
      () => false,
      () => undefined,
    );
    for (let n = 1; n <= 6; n++) expect(backlog.push(n)).toBe(true);
    expect(done).toEqual([]);
    await backlog.idle();
    expect(done).toEqual([1, 2, 3, 4, 5, 6]);
    expect(most).toBe(1);
  });

  it('refuses beyond max waiting, and takes more once worked off', async () => {
    const backlog = new Backlog<number>(
      2,
      () => undefined,
      () => false,
      () => undefined,
    );
    expect([backlog.push(1), backlog.push(2), backlog.push(3)]).toEqual([true, true, false]);
    expect(backlog.size).toBe(2);
    await backlog.idle();
    expect(backlog.size).toBe(0);
    expect(backlog.push(4)).toBe(true);
  });

  it('drops what waits once halted, and reports an item that failed', async () => {
    const done: number[] = [];
    const failures: unknown[] = [];
    let halted = false;
    const backlog = new Backlog<number>(
      10,
      (n) => {
        if (n === 2) throw new Error('broken');
        done.push(n);
        if (n === 4) halted = true;
        return undefined;
      },
      () => halted,
      (error) => failures.push(error),
    );
    for (const n of [1, 2, 3]) backlog.push(n);
    await backlog.idle();
    expect(done).toEqual([1]);
    expect(failures).toEqual([new Error('broken')]);
    // The failed run left 3 waiting; the next push works it off.
    for (const n of [4, 5]) backlog.push(n);
    await backlog.idle();
    expect(done).toEqual([1, 3, 4]);
    expect(backlog.size).toBe(0);
  });
});
