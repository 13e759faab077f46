// The desktop's people in the chrome: the words a person sees (who is in charge and what that
// means, what they may do, who watches), the charge buttons and the exact message each sends (a
// valid wire message), and the View only badge for a view grant.
import { ChargeMessage, parseViewerMessage } from '@overlay-companion/protocol';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { DesktopPeople } from '../store/desktopState.js';
import {
  accessText,
  chargeChoices,
  chargeExplanation,
  chargeLabel,
  watchingText,
} from './chargeText.js';
import { DesktopChargeView } from './DesktopCharge.js';

const bob = { id: 'p_bob', name: 'Bob' };
const ada = { id: 'p_ada', name: 'Ada' };
const cy = { id: 'p_cy', name: 'Cy' };

function people(you: Partial<DesktopPeople['you']>, inCharge = bob): DesktopPeople {
  return {
    desktop: { id: 'dsk_studio', name: 'Studio desk' },
    in_charge: inCharge,
    watchers: [
      { ...bob, access: 'owner' },
      { ...ada, access: 'control' },
      { ...cy, access: 'view' },
    ],
    more_watchers: 0,
    you: {
      access: 'admin',
      in_charge: false,
      may_take_charge: false,
      may_hand_over_to: [],
      ...you,
    },
  };
}

describe('charge text', () => {
  it('says who is in charge and what it means, for someone else and for you', () => {
    const other = people({});
    expect(chargeLabel(other)).toBe('AI in charge: Bob');
    expect(chargeExplanation(other)).toBe(
      'Bob is in charge of the AI here: only Bob’s AI may act, and Bob answers its requests. Stop still works for you.',
    );
    const you = people({ in_charge: true, access: 'owner' }, ada);
    expect(chargeLabel(you)).toBe('You are in charge');
    expect(chargeExplanation(you)).toMatch(/^You are in charge of the AI here: only your AI/);
  });

  it('says what the person may do, and how they could get the charge', () => {
    expect(accessText(people({ access: 'view' }))).toMatch(/^View only: .*never reach/);
    expect(accessText(people({ access: 'control' }))).toBe(
      'You may use this desktop’s mouse and keyboard. Bob may hand you the charge.',
    );
    expect(accessText(people({ access: 'admin', may_take_charge: true }))).toMatch(
      /You may take the charge at any time\.$/,
    );
  });

  it('lists the watchers, the rest counted', () => {
    expect(watchingText(people({}))).toBe('Watching: Bob, Ada, Cy');
    expect(watchingText({ ...people({}), more_watchers: 4 }, 2)).toBe(
      'Watching: Bob, Ada and 5 more',
    );
    expect(watchingText({ ...people({}), watchers: [] })).toBe('Nobody else is watching');
  });
});

describe('charge choices', () => {
  it('offers Take charge only to someone who may and is not in charge', () => {
    expect(chargeChoices(people({ may_take_charge: true })).map((c) => c.message)).toEqual([
      { type: 'charge', action: 'take' },
    ]);
    expect(chargeChoices(people({ may_take_charge: false }))).toEqual([]);
    expect(chargeChoices(people({ may_take_charge: true, in_charge: true }, ada))).toEqual([]);
  });

  it('offers one Hand over per person, each sending their id', () => {
    const choices = chargeChoices(
      people({ in_charge: true, may_take_charge: true, may_hand_over_to: [bob, cy] }, ada),
    );
    expect(choices.map((c) => c.label)).toEqual(['Hand over to Bob', 'Hand over to Cy']);
    expect(choices.map((c) => c.message)).toEqual([
      { type: 'charge', action: 'hand_over', to: 'p_bob' },
      { type: 'charge', action: 'hand_over', to: 'p_cy' },
    ]);
    // What the bridge will read: each one a valid charge message.
    for (const { message } of choices) {
      expect(ChargeMessage.safeParse(message).success).toBe(true);
      expect(parseViewerMessage(JSON.stringify(message)).ok).toBe(true);
    }
  });
});

describe('DesktopChargeView', () => {
  const render = (p: DesktopPeople, open = true) =>
    renderToStaticMarkup(
      <DesktopChargeView people={p} open={open} onToggle={() => {}} onCharge={() => {}} />,
    );

  it('shows the desktop, who is in charge, the watchers and the choices', () => {
    const html = render(people({ may_take_charge: true, may_hand_over_to: [] }));
    expect(html).toContain('Studio desk');
    expect(html).toContain('AI in charge: Bob');
    expect(html).toContain('Watching: Bob, Ada, Cy');
    expect(html).toContain('Stop still works for you.');
    expect(html).toContain('data-testid="charge-take"');
    expect(html).not.toContain('view-only-badge');
  });

  it('shows View only for a view grant, with no charge buttons', () => {
    const html = render(people({ access: 'view' }));
    expect(html).toContain('data-testid="view-only-badge"');
    expect(html).toContain('>View only<');
    expect(html).not.toContain('data-testid="charge-take"');
    expect(html).not.toContain('data-testid="charge-hand_over"');
  });

  it('keeps the panel closed until asked', () => {
    expect(render(people({ may_take_charge: true }), false)).not.toContain('id="charge-panel"');
  });
});
