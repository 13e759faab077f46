// Tables for set_mode, the clipboard tools and the event tools.
import { describe, expect, it } from 'vitest';
import { schemaTable } from '../testing/schemaTable.js';
import { UiEvent } from './events.js';

describe('set_mode input', () => {
  schemaTable(
    'set_mode',
    [
      { args: { mode: 'passive' } },
      { args: { mode: 'assist' } },
      { args: { mode: 'autopilot' } },
      { args: { mode: 'composing' } },
      { args: { mode: 'custom', metadata: { allow: ['type_text'], deny: ['click_at'] } } },
      // Malformed custom policies still parse here: decidePolicy must see them and deny.
      { args: { mode: 'custom', metadata: { allow: 'everything' } } },
    ],
    [
      { args: { mode: 'god' }, error: ['mode: must be one of passive, assist, autopilot'] },
      { args: {}, error: ['mode: is required'] },
      { args: { mode: 'custom', metadata: [] }, error: ['metadata: must be a record'] },
      {
        args: {
          mode: 'custom',
          metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i])),
        },
        error: ['metadata: must have at most 16 keys'],
      },
      { args: { mode: 'assist', reason: 'x' }, error: ['reason: is not a known field'] },
    ],
  );
});

describe('clipboard input', () => {
  schemaTable('get_clipboard', [{ args: {} }], [{ args: { format: 'html' }, error: ['format:'] }]);
  schemaTable(
    'set_clipboard',
    [{ args: { text: '' } }, { args: { text: 'x'.repeat(1024 * 1024) } }],
    [
      { args: {}, error: ['text: is required'] },
      { args: { text: 'x'.repeat(1024 * 1024 + 1) }, error: ['text: must be at most 1048576'] },
    ],
  );
});

describe('event tools input', () => {
  schemaTable(
    'subscribe_events',
    [
      { args: { events: ['mouse_click'] }, expect: { debounce_ms: 100 } },
      {
        args: {
          events: ['mouse_move', 'mouse_click', 'key_press', 'window_focus', 'screen_change'],
          debounce_ms: 0,
          filter: { region: { x: 0, y: 0, width: 10, height: 10 }, keys: ['Return', 'a'] },
        },
      },
    ],
    [
      { args: { events: [] }, error: ['events: must have at least 1 item'] },
      { args: { events: ['scroll'] }, error: ['events[0]: must be one of mouse_move'] },
      {
        args: { events: ['key_press', 'key_press'] },
        error: ['events: must not list the same event type twice'],
      },
      { args: { events: ['key_press'], debounce_ms: 10001 }, error: ['debounce_ms: must be ≤'] },
      {
        args: { events: ['key_press'], filter: { keys: [] } },
        error: ['filter.keys: must have at least 1 item'],
      },
    ],
  );
  schemaTable(
    'unsubscribe_events',
    [{ args: { subscription_id: 'sub-1' } }],
    [{ args: {}, error: ['subscription_id: is required'] }],
  );
  schemaTable(
    'get_events',
    [{ args: {}, expect: { max: 100 } }, { args: { subscription_id: 's', max: 1000 } }],
    [
      { args: { max: 0 }, error: ['max: must be ≥ 1'] },
      { args: { max: 1001 }, error: ['max: must be ≤ 1000'] },
    ],
  );

  it('UiEvent data is typed per event type', () => {
    expect(UiEvent.safeParse({ type: 'mouse_move', at: 1, data: { x: 1, y: 2 } }).success).toBe(
      true,
    );
    expect(
      UiEvent.safeParse({ type: 'key_press', at: 1, data: { key: 'a', keysym: 0x61 } }).success,
    ).toBe(true);
    expect(UiEvent.safeParse({ type: 'mouse_move', at: 1, data: { keysym: 1 } }).success).toBe(
      false,
    );
    expect(UiEvent.safeParse({ type: 'scroll', at: 1, data: {} }).success).toBe(false);
  });
});
