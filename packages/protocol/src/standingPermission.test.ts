import { describe, expect, it } from 'vitest';
import { matchingStandingPermission, type StandingPermission } from './standingPermission.js';

const grant: StandingPermission = {
  id: 'g1',
  tool: 'click_at',
  clientKey: 'tok1:Claude Code',
  expiresAt: 10_000,
};
const call = { tool: 'click_at' as const, args: { x: 1, y: 2 }, clientKey: 'tok1:Claude Code' };
const ask = { decision: 'confirm' as const };

describe('matchingStandingPermission', () => {
  it('turns an ask for the same tool and client into an allow until it expires', () => {
    expect(matchingStandingPermission(ask, call, [grant], 9_999)).toBe(grant);
    expect(matchingStandingPermission(ask, call, [grant], 10_000)).toBeUndefined();
    const forSession = { ...grant, expiresAt: null };
    expect(matchingStandingPermission(ask, call, [forSession], 1e15)).toBe(forSession);
  });

  it('is scoped to one tool and one AI client', () => {
    expect(matchingStandingPermission(ask, { ...call, tool: 'type_text' }, [grant], 0)).toBe(
      undefined,
    );
    expect(
      matchingStandingPermission(ask, { ...call, clientKey: 'tok1:Cursor' }, [grant], 0),
    ).toBeUndefined();
    expect(
      matchingStandingPermission(ask, { ...call, clientKey: undefined }, [grant], 0),
    ).toBeUndefined();
  });

  it('never allows a denied call and never answers a call the AI wants confirmed', () => {
    const denied = { decision: 'deny' as const, by: 'mode' as const, message: 'passive' };
    expect(matchingStandingPermission(denied, call, [grant], 0)).toBeUndefined();
    const wants = { ...call, args: { x: 1, y: 2, require_user_confirmation: true } };
    expect(matchingStandingPermission(ask, wants, [grant], 0)).toBeUndefined();
  });
});
