// The on-demand local desktops, for real: a `local` record's desktop starts sandboxed when first
// asked for (once, however many ask at the same time), its VNC socket is handed to the gateway's
// allow list, it is kept while in use, stopped once idle for its record's time (its socket taken
// back off the list and its Xvnc gone), and started afresh when asked again.
import { access } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { LocalDesktopPool } from './localDesktopPool.js';

const allowed = new Set<string>();
const used = new Set<string>();
const pool = new LocalDesktopPool({
  logger: silentLogger(),
  allowSocket: (path) => {
    allowed.add(path);
    return () => allowed.delete(path);
  },
  inUse: (id) => used.has(id),
});

afterAll(() => pool.close());

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('LocalDesktopPool', () => {
  it('starts a sandboxed desktop once for concurrent askers and allows its socket', async () => {
    const [a, b] = await Promise.all([
      pool.ensure('dsk_one', { idle_stop_minutes: 1 }, 'prs_owner'),
      pool.ensure('dsk_one', { idle_stop_minutes: 1 }, 'prs_owner'),
    ]);
    expect(a.rfbPath).toBe(b.rfbPath);
    expect(a.desktop.sandbox).toBeDefined();
    await expect(access(a.rfbPath)).resolves.toBeUndefined();
    expect(allowed.has(a.rfbPath)).toBe(true);
  }, 30_000);

  it('keeps a desktop in use, stops it once idle, and starts a fresh one when asked again', async () => {
    const first = await pool.ensure('dsk_one', { idle_stop_minutes: 1 }, 'prs_owner');
    used.add('dsk_one');
    const later = Date.now() + 5 * 60_000;
    await pool.stopIdle(later); // in use then: it counts as used at that moment
    expect(await pool.get('dsk_one')).toBe(first.desktop);
    used.delete('dsk_one');
    await pool.stopIdle(later + 30_000); // not idle long enough yet
    expect(await pool.get('dsk_one')).toBe(first.desktop);
    await pool.stopIdle(later + 2 * 60_000);
    expect(await pool.get('dsk_one')).toBeUndefined();
    expect(allowed.has(first.rfbPath)).toBe(false);
    expect(alive(first.desktop.pid)).toBe(false);

    const again = await pool.ensure('dsk_one', { idle_stop_minutes: 1 }, 'prs_owner');
    expect(again.desktop.pid).not.toBe(first.desktop.pid);
    expect(allowed.has(again.rfbPath)).toBe(true);
  }, 60_000);

  it('stopped while starting, allows no socket and leaves no desktop', async () => {
    const starting = pool.ensure('dsk_two', {}, 'prs_owner');
    await pool.stop('dsk_two');
    const started = await starting;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(allowed.has(started.rfbPath)).toBe(false);
    expect(await pool.get('dsk_two')).toBeUndefined();
    expect(alive(started.desktop.pid)).toBe(false);
  }, 30_000);
});
