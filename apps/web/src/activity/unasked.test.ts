import { defaultPermissions } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { toolsAllowedUnasked, type UnaskedInput } from './unasked.js';

const base: UnaskedInput = {
  mode: 'assist',
  metadata: undefined,
  permissions: defaultPermissions(),
  standing: [],
  now: 1_000,
};

describe('toolsAllowedUnasked', () => {
  it('is empty when every action asks or is denied', () => {
    expect(toolsAllowedUnasked(base)).toEqual([]);
    expect(toolsAllowedUnasked({ ...base, mode: 'passive' })).toEqual([]);
    expect(toolsAllowedUnasked({ ...base, mode: null })).toEqual([]);
  });

  it('lists what autopilot and composing let through', () => {
    expect(toolsAllowedUnasked({ ...base, mode: 'autopilot' })).toContain('click_at');
    const composing = toolsAllowedUnasked({ ...base, mode: 'composing' });
    expect(composing).toContain('type_text');
    expect(composing).not.toContain('click_at');
  });

  it('counts a live standing permission, not an expired one', () => {
    const standing = [{ tool: 'click_at' as const, expiresAt: 2_000 }];
    expect(toolsAllowedUnasked({ ...base, standing })).toEqual(['click_at']);
    expect(toolsAllowedUnasked({ ...base, standing, now: 2_000 })).toEqual([]);
  });
});
