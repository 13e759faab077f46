import { describe } from 'vitest';
import { schemaTable } from '../testing/schemaTable.js';

describe('click_at input', () => {
  schemaTable(
    'click_at',
    [
      {
        args: { x: 5, y: 6 },
        expect: { x: 5, y: 6, button: 'left', clicks: 1, require_user_confirmation: false },
      },
      {
        args: {
          x: 0,
          y: 0,
          button: 'right',
          clicks: 3,
          require_user_confirmation: true,
          action_timing_hint: 10000,
          monitor_index: 2,
        },
      },
      {
        args: { x: 1, y: 1, button: 'middle', clicks: 2, action_timing_hint: 0 },
        expect: { action_timing_hint: { delay_before_ms: 0, delay_after_ms: 0 } },
      },
      {
        args: {
          x: 10.5,
          y: 0.4,
          action_timing_hint: { delay_before_ms: 200, delay_after_ms: 50.6, speed: 'x' },
        },
        expect: { x: 11, y: 0, action_timing_hint: { delay_before_ms: 200, delay_after_ms: 51 } },
      },
      {
        args: { x: 1, y: 1, action_timing_hint: 250 },
        expect: { action_timing_hint: { delay_before_ms: 250, delay_after_ms: 0 } },
      },
      {
        args: { x: 1, y: 1, action_timing_hint: {} },
        expect: { action_timing_hint: { delay_before_ms: 0, delay_after_ms: 0 } },
      },
    ],
    [
      { args: { x: 1 }, error: ['y: is required'] },
      {
        args: { x: 1, y: 1, button: 'back' },
        error: ['button: must be one of left, right, middle'],
      },
      { args: { x: 1, y: 1, clicks: 4 }, error: ['clicks: must be ≤ 3'] },
      { args: { x: 1, y: 1, clicks: 0 }, error: ['clicks: must be ≥ 1'] },
      {
        args: { x: 1, y: 1, action_timing_hint: 10001 },
        error: ['action_timing_hint: must be ≤ 10000'],
      },
      {
        args: { x: 1, y: 1, action_timing_hint: { delay_after_ms: -1 } },
        error: ['action_timing_hint.delay_after_ms: must be ≥ 0'],
      },
      {
        args: { x: 1, y: 1, action_timing_hint: 'soon' },
        error: ['action_timing_hint: must be a number or an object'],
      },
      { args: { x: 1, y: 1, double: true }, error: ['double: is not a known field'] },
      { args: { x: '1', y: 1 }, error: ['x: must be a number'] },
    ],
  );
});

describe('type_text input', () => {
  schemaTable(
    'type_text',
    [
      {
        args: { text: 'hello' },
        expect: { typing_speed_wpm: 60, require_user_confirmation: false },
      },
      { args: { text: 'line 1\nline 2\r\n\tend', typing_speed_wpm: 1000 } },
      { args: { text: 'x'.repeat(10000), typing_speed_wpm: 10, action_timing_hint: 5 } },
      { args: { text: 'héllo → 世界 🎉' } },
    ],
    [
      { args: { text: '' }, error: ['text: must be at least 1 character'] },
      { args: { text: 'x'.repeat(10001) }, error: ['text: must be at most 10000 characters'] },
      {
        args: { text: 'bell\u0007' },
        error: ['text: contains control character U+0007 at index 4'],
      },
      { args: { text: 'a', typing_speed_wpm: 9 }, error: ['typing_speed_wpm: must be ≥ 10'] },
      { args: { text: 'a', typing_speed_wpm: 1001 }, error: ['typing_speed_wpm: must be ≤ 1000'] },
      { args: { text: 'a', speed: 5 }, error: ['speed: is not a known field'] },
    ],
  );
});

describe('press_key input', () => {
  schemaTable(
    'press_key',
    [
      { args: { keys: 'ctrl+alt+t' }, expect: { repeat: 1, require_user_confirmation: false } },
      { args: { keys: 'Return', repeat: 50 } },
      { args: { keys: 'F5' } },
      { args: { keys: 'shift+Tab', require_user_confirmation: true } },
      { args: { keys: 'ctrl++' } },
    ],
    [
      { args: { keys: '' }, error: ['keys: must be at least 1 character'] },
      { args: { keys: 'ctrl+' }, error: ['keys: "ctrl+" has no key after the modifiers'] },
      { args: { keys: 'hyper+a' }, error: ['keys: "hyper" is not a modifier'] },
      { args: { keys: 'F25' }, error: ['keys: unknown key "F25"'] },
      { args: { keys: 'ctrl+c', repeat: 51 }, error: ['repeat: must be ≤ 50'] },
      { args: { keys: 'ctrl+c', repeat: 0 }, error: ['repeat: must be ≥ 1'] },
      { args: { key: 'Return' }, error: ['keys: is required', 'key: is not a known field'] },
    ],
  );
});

describe('scroll / drag / mouse_move input', () => {
  schemaTable(
    'scroll',
    [
      { args: { x: 1, y: 2, direction: 'down' }, expect: { amount: 3 } },
      { args: { x: 1, y: 2, direction: 'left', amount: 50 } },
    ],
    [
      {
        args: { x: 1, y: 2, direction: 'sideways' },
        error: ['direction: must be one of up, down'],
      },
      { args: { x: 1, y: 2, direction: 'up', amount: 51 }, error: ['amount: must be ≤ 50'] },
      { args: { x: 1, y: 2, direction: 'up', amount: 0 }, error: ['amount: must be ≥ 1'] },
    ],
  );
  schemaTable(
    'drag',
    [
      {
        args: { from: { x: 1, y: 2 }, to: { x: 3, y: 4 } },
        expect: { button: 'left', duration_ms: 300 },
      },
      { args: { from: { x: 1, y: 2 }, to: { x: 3, y: 4 }, button: 'right', duration_ms: 0 } },
    ],
    [
      { args: { from: { x: 1, y: 2 } }, error: ['to: is required'] },
      { args: { from: { x: 1 }, to: { x: 3, y: 4 } }, error: ['from.y: is required'] },
      {
        args: { from: { x: 1, y: 2 }, to: { x: 3, y: 4 }, duration_ms: 10001 },
        error: ['duration_ms: must be ≤ 10000'],
      },
      {
        args: { from: { x: 1, y: 2, z: 0 }, to: { x: 3, y: 4 } },
        error: ['from.z: is not a known field'],
      },
    ],
  );
  schemaTable(
    'mouse_move',
    [{ args: { x: 32767, y: 0 } }],
    [
      { args: { x: 32768, y: 0 }, error: ['x: must be ≤ 32767'] },
      { args: { x: 1, y: 1, smooth: true }, error: ['smooth: is not a known field'] },
    ],
  );
});
