import { defaultPermissions } from '@overlay-companion/protocol';
import { describe, expect, it } from 'vitest';
import { POINTER_EVENT_TYPES, followsPointer } from './pointerFollowing.js';

const allowed = { ...defaultPermissions(), read_pointer_events: true };
const refused = { ...defaultPermissions(), read_pointer_events: false };

describe('followsPointer', () => {
  it('is true while a subscription collects pointer events the person allows', () => {
    expect(followsPointer(['mouse_move'], allowed)).toBe(true);
    expect(followsPointer(['mouse_click', 'key_press'], allowed)).toBe(true);
    expect(followsPointer(['window_focus'], allowed)).toBe(true);
  });

  it('is false when nothing collects them, the person turned them off, or it is not known', () => {
    expect(followsPointer(['key_press', 'screen_change'], allowed)).toBe(false);
    expect(followsPointer([], allowed)).toBe(false);
    expect(followsPointer(['mouse_move'], refused)).toBe(false);
    expect(followsPointer(null, allowed)).toBe(false);
    expect(followsPointer(['mouse_move'], null)).toBe(false);
  });

  it('counts the event types the pointer permission governs, and no other', () => {
    expect([...POINTER_EVENT_TYPES].sort()).toEqual(['mouse_click', 'mouse_move', 'window_focus']);
  });
});
