// The viewer's own policy check: every mode × bridge policy × headless combination for an input
// tool, require_user_confirmation, non-input tools, and the fail-closed cases (unknown mode,
// malformed custom policy).
import { defaultPermissions } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { gateToolCall, type GateInput } from './policyGate.js';

const base: GateInput = {
  mode: 'assist',
  metadata: undefined,
  permissions: defaultPermissions(),
  name: 'click_at',
  args: {},
  bridgePolicy: 'confirm',
  headless: false,
};

const action = (over: Partial<GateInput>) => gateToolCall({ ...base, ...over }).action;

describe('gateToolCall', () => {
  it.each([
    // mode, bridge policy, headless, expected
    ['passive', 'allow', false, 'deny'],
    ['passive', 'allow', true, 'deny'],
    ['assist', 'confirm', false, 'confirm'],
    ['assist', 'allow', false, 'confirm'], // the bridge thought allow; the viewer still asks
    ['assist', 'allow', true, 'run'], // headless: the bridge asked through elicitation
    ['assist', 'confirm', true, 'confirm'],
    ['autopilot', 'allow', false, 'run'],
    ['autopilot', 'confirm', false, 'confirm'], // the stricter answer wins
  ] as const)('%s + bridge %s (headless %s) → %s', (mode, bridgePolicy, headless, expected) => {
    expect(action({ mode, bridgePolicy, headless })).toBe(expected);
  });

  it('denies input before the mode is known', () => {
    expect(gateToolCall({ ...base, mode: null, bridgePolicy: 'allow' })).toMatchObject({
      action: 'deny',
      message: expect.stringContaining('does not know the mode') as unknown,
    });
  });

  it('asks when the AI requests confirmation even in autopilot', () => {
    expect(
      action({
        mode: 'autopilot',
        bridgePolicy: 'allow',
        args: { require_user_confirmation: true },
      }),
    ).toBe('confirm');
  });

  it('follows the custom policy and fails closed on a malformed one', () => {
    const metadata = { allow: ['click_at'], deny: ['type_text'] };
    expect(action({ mode: 'custom', metadata, bridgePolicy: 'allow' })).toBe('run');
    expect(action({ mode: 'custom', metadata, name: 'type_text', bridgePolicy: 'allow' })).toBe(
      'deny',
    );
    expect(action({ mode: 'custom', metadata, name: 'scroll', bridgePolicy: 'allow' })).toBe(
      'confirm',
    );
    expect(action({ mode: 'custom', metadata: null, bridgePolicy: 'allow' })).toBe('deny');
  });

  it('runs non-input tools in every mode, passive included', () => {
    expect(action({ mode: 'passive', name: 'draw_overlay', bridgePolicy: 'allow' })).toBe('run');
    expect(action({ mode: null, name: 'take_screenshot', bridgePolicy: 'allow' })).toBe('run');
  });

  it("denies what the person's toggles turn off, whatever the mode and the bridge said", () => {
    // Clipboard read starts off (the seed: clipboard access needs explicit permission).
    expect(
      gateToolCall({ ...base, mode: 'autopilot', name: 'get_clipboard', bridgePolicy: 'allow' }),
    ).toMatchObject({
      action: 'deny',
      message: expect.stringContaining('Let the AI read the clipboard') as unknown,
    });
    const noScreen = { ...defaultPermissions(), screenshots: false };
    expect(
      action({
        mode: 'autopilot',
        permissions: noScreen,
        name: 'take_screenshot',
        bridgePolicy: 'allow',
      }),
    ).toBe('deny');
    const noInput = { ...defaultPermissions(), input_actions: false };
    expect(action({ mode: 'autopilot', permissions: noInput, bridgePolicy: 'allow' })).toBe('deny');
    expect(
      action({
        mode: 'autopilot',
        permissions: noInput,
        name: 'draw_overlay',
        bridgePolicy: 'allow',
      }),
    ).toBe('run');
  });

  it('denies every tool that needs a permission before the toggles are known', () => {
    expect(
      action({
        mode: 'autopilot',
        permissions: null,
        name: 'take_screenshot',
        bridgePolicy: 'allow',
      }),
    ).toBe('deny');
    expect(
      action({ mode: 'autopilot', permissions: null, name: 'draw_overlay', bridgePolicy: 'allow' }),
    ).toBe('run');
  });

  it('runs an ask the bridge allowed by a standing permission only while this window lists it', () => {
    const standing = [{ id: 's1', tool: 'click_at' as const, clientKey: 'k', expiresAt: 2_000 }];
    const byBridge = {
      standing,
      standingId: 's1',
      clientKey: 'k',
      now: 1_000,
      bridgePolicy: 'allow' as const,
    };
    expect(action({ ...byBridge })).toBe('run');
    expect(action({ ...byBridge, now: 2_000 })).toBe('confirm'); // ran out here
    expect(action({ ...byBridge, standingId: 's2' })).toBe('confirm'); // not the one listed
    expect(action({ ...byBridge, standing: [] })).toBe('confirm'); // revoked (Stop)
    expect(action({ ...byBridge, clientKey: 'other' })).toBe('confirm');
    expect(action({ ...byBridge, name: 'type_text' })).toBe('confirm');
    expect(action({ ...byBridge, args: { require_user_confirmation: true } })).toBe('confirm');
    expect(action({ ...byBridge, mode: 'passive' })).toBe('deny');
  });

  it('never turns an ask into a run on its own: the bridge asking wins over a listed permission', () => {
    const standing = [{ id: 's1', tool: 'click_at' as const, clientKey: 'k', expiresAt: null }];
    expect(action({ standing, clientKey: 'k', bridgePolicy: 'confirm' })).toBe('confirm');
    expect(action({ standing, clientKey: 'k', standingId: 's1', bridgePolicy: 'confirm' })).toBe(
      'confirm',
    );
  });
});
