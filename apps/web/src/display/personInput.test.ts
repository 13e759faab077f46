// The person's input leaves the window only when they did not choose View only and their grant
// on this desktop is not `view`.
import { afterEach, describe, expect, it } from 'vitest';
import type { DesktopStateMessage } from '@overlay-companion/protocol';
import { createDesktopStateStore, desktopStateStore } from '../store/desktopState.js';
import { personInputBlocked } from './personInput.js';

function desktopState(access: DesktopStateMessage['you']['access']): DesktopStateMessage {
  return {
    type: 'desktop_state',
    desktop: { id: 'dsk_1', name: 'Studio' },
    in_charge: { id: 'p_bob', name: 'Bob' },
    watchers: [],
    more_watchers: 0,
    you: { access, in_charge: false, may_take_charge: false, may_hand_over_to: [] },
  };
}

describe('personInputBlocked', () => {
  afterEach(() => desktopStateStore.setState({ people: null }));

  it('lets input through before any desktop_state and for control, admin and owner', () => {
    const store = createDesktopStateStore();
    expect(personInputBlocked({ viewOnly: false }, store.getState())).toBe(false);
    for (const access of ['control', 'admin', 'owner'] as const) {
      store.getState().desktopStateReceived(desktopState(access));
      expect(personInputBlocked({ viewOnly: false }, store.getState())).toBe(false);
    }
  });

  it('drops input for a view grant, whatever the menu says, and when View only is chosen', () => {
    const store = createDesktopStateStore();
    store.getState().desktopStateReceived(desktopState('view'));
    expect(personInputBlocked({ viewOnly: false }, store.getState())).toBe(true);
    store.getState().desktopStateReceived(desktopState('control'));
    expect(personInputBlocked({ viewOnly: true }, store.getState())).toBe(true);
  });

  it('reads the page stores by default, as the input bindings do at each event', () => {
    expect(personInputBlocked()).toBe(false);
    desktopStateStore.getState().desktopStateReceived(desktopState('view'));
    expect(personInputBlocked()).toBe(true);
  });
});
