// The bridge's list of standing permissions on its own: numbering, a new answer replacing the
// old one for the same tool and client, ending by time (with the windows told when it runs out,
// not only at the next call), by revoke, by Stop, and "this AI session" ones when the client's
// last session is gone; the list is bounded.
import { MAX_STANDING_PERMISSIONS, aiClientRef } from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StandingPermissions, type StandingEnd } from './standingPermissions.js';

const ada = { id: 'p1', name: 'Ada' };
const claude = aiClientRef('tok1', 'laptop', 'claude');
const cursor = aiClientRef('tok1', 'laptop', 'cursor');

let changes = 0;
let ended: Array<[number, StandingEnd]> = [];
let list: StandingPermissions;

beforeEach(() => {
  vi.useFakeTimers();
  changes = 0;
  ended = [];
  list = new StandingPermissions({
    changed: () => (changes += 1),
    observer: { ended: (record, why) => ended.push([record.number, why]) },
  });
});
afterEach(() => vi.useRealTimers());

const ask = { decision: 'confirm' as const };
const clickBy = (clientKey: string) => ({ tool: 'click_at' as const, args: {}, clientKey });

describe('StandingPermissions', () => {
  it('numbers them, and a new answer for the same tool and client replaces the old', () => {
    const first = list.grant({ tool: 'click_at', client: claude, minutes: 5, grantedBy: ada });
    const second = list.grant({ tool: 'click_at', client: claude, minutes: 60, grantedBy: ada });
    expect([first.number, second.number]).toEqual([1, 2]);
    expect(list.size).toBe(1);
    expect(ended).toEqual([[1, 'revoked']]);
    expect(list.match(ask, clickBy(claude.key))?.id).toBe(second.id);
    expect(list.match(ask, clickBy(cursor.key))).toBeUndefined();
    expect(list.match({ decision: 'allow' }, clickBy(claude.key))).toBeUndefined();
  });

  it('ends one when its time runs out, and tells the windows then', () => {
    list.grant({ tool: 'click_at', client: claude, minutes: 5, grantedBy: ada });
    expect(list.message().permissions[0]?.expires_in_ms).toBe(5 * 60_000);
    const before = changes;
    vi.advanceTimersByTime(5 * 60_000 + 10);
    expect(changes).toBe(before + 1);
    expect(list.message().permissions).toEqual([]);
    expect(ended).toEqual([[1, 'expired']]);
  });

  it('ends "this AI session" ones only when the client has no session left', () => {
    list.grant({ tool: 'click_at', client: claude, minutes: null, grantedBy: ada });
    list.grant({ tool: 'type_text', client: cursor, minutes: 15, grantedBy: ada });
    list.endSessionsGone(new Set([claude.key]));
    expect(list.size).toBe(2);
    list.endSessionsGone(new Set());
    expect(list.message().permissions.map((p) => p.tool)).toEqual(['type_text']);
    expect(ended).toEqual([[1, 'session_ended']]);
  });

  it('ends every one at Stop, and a revoked one only once', () => {
    const one = list.grant({ tool: 'click_at', client: claude, minutes: 5, grantedBy: ada });
    list.grant({ tool: 'scroll', client: claude, minutes: 5, grantedBy: ada });
    expect(list.revoke(one.id, ada.id)).toBe(true);
    expect(list.revoke(one.id, ada.id)).toBe(false);
    list.endAll('stop');
    expect(list.size).toBe(0);
    expect(ended).toEqual([
      [1, 'revoked'],
      [2, 'stop'],
    ]);
  });

  it('keeps at most MAX_STANDING_PERMISSIONS, dropping the oldest', () => {
    for (let i = 0; i <= MAX_STANDING_PERMISSIONS; i += 1) {
      const client = aiClientRef('tok', 'laptop', `client ${i}`);
      list.grant({ tool: 'click_at', client, minutes: 5, grantedBy: ada });
    }
    expect(list.size).toBe(MAX_STANDING_PERMISSIONS);
    expect(list.message().permissions[0]?.number).toBe(2);
  });
});

describe('StandingPermissions kept in the store', () => {
  it('reports grants and ends as kept, expiry apart; a restored list matches and numbers on', () => {
    const how: string[] = [];
    const mine = new StandingPermissions({ changed: (change) => how.push(change) });
    mine.grant({ tool: 'click_at', client: claude, minutes: 5, grantedBy: ada });
    mine.grant({ tool: 'type_text', client: claude, minutes: 60, grantedBy: ada });
    vi.advanceTimersByTime(5 * 60_000 + 10);
    expect(how).toEqual(['kept', 'kept', 'expired']);
    const { list: kept, counter } = mine.stored();
    const other = new StandingPermissions({ changed: (change) => how.push(change) });
    expect(other.restore(JSON.parse(JSON.stringify(kept)), counter)).toBe(true);
    expect(how.at(-1)).toBe('restored');
    expect(other.match(ask, { tool: 'type_text', args: {}, clientKey: claude.key })?.number).toBe(
      2,
    );
    expect(
      other.grant({ tool: 'click_at', client: claude, minutes: 5, grantedBy: ada }).number,
    ).toBe(3);
  });

  it('a stored list that does not parse restores as none (fail closed); run-out ones are left out', () => {
    const mine = new StandingPermissions({ changed: () => undefined });
    mine.grant({ tool: 'click_at', client: claude, minutes: 5, grantedBy: ada });
    const stored = mine.stored();
    const tampered = [{ ...stored.list[0], tool: 'rm_rf' }];
    const other = new StandingPermissions({ changed: () => undefined });
    expect(other.restore(tampered, 1)).toBe(false);
    expect(other.size).toBe(0);
    vi.advanceTimersByTime(6 * 60_000);
    expect(other.restore(stored.list, stored.counter)).toBe(true);
    expect(other.size).toBe(0);
  });
});
