import { describe } from 'vitest';
import { schemaTable } from '../testing/schemaTable.js';

const base = { x: 10, y: 20, width: 30, height: 40, color: 'red' };

describe('draw_overlay input', () => {
  schemaTable(
    'draw_overlay',
    [
      { args: base, expect: { ...base, opacity: 0.5, click_through: true } },
      { args: { ...base, color: '#0f0' } },
      { args: { ...base, color: '#00ff00' } },
      { args: { ...base, color: '#00ff0080' } },
      { args: { ...base, color: 'CornflowerBlue' } },
      { args: { ...base, color: 'rebeccapurple' } },
      { args: { ...base, x: 0, y: 32767, width: 32767, height: 1 } },
      {
        args: {
          ...base,
          opacity: 1,
          label: 'x'.repeat(200),
          temporary_ms: 100,
          click_through: false,
          monitor_index: 0,
        },
        expect: { opacity: 1, temporary_ms: 100, click_through: false, monitor_index: 0 },
      },
      { args: { ...base, temporary_ms: 600000, opacity: 0 } },
      // The seed's example call, verbatim: color optional (default red), numbers rounded.
      {
        args: {
          x: 100,
          y: 200,
          width: 300,
          height: 50,
          color: 'blue',
          label: 'Click here',
          temporary_ms: 5000,
        },
        expect: { x: 100, y: 200, width: 300, height: 50, color: 'blue', temporary_ms: 5000 },
      },
      { args: { x: 1, y: 1, width: 1, height: 1 }, expect: { color: 'red', opacity: 0.5 } },
      {
        args: { ...base, x: 10.4, y: 10.5, width: 29.6, height: 0.5, temporary_ms: 100.4 },
        expect: { x: 10, y: 11, width: 30, height: 1, temporary_ms: 100 },
      },
    ],
    [
      { args: { ...base, x: -1 }, error: ['x: must be ≥ 0'] },
      { args: { ...base, x: Number.NaN }, error: ['x: must be a number'] },
      { args: { ...base, y: 32768 }, error: ['y: must be ≤ 32767'] },
      { args: { ...base, width: 0.49 }, error: ['width: must be ≥ 0.5'] },
      { args: { ...base, height: 'tall' }, error: ['height: must be a number'] },
      { args: { ...base, color: 'reddish' }, error: ['color: must be a CSS color name'] },
      { args: { ...base, color: '#12' }, error: ['color: must be a CSS color name'] },
      { args: { ...base, color: '#1234' }, error: ['color:'] },
      { args: { ...base, color: 'rgb(1,2,3)' }, error: ['color:'] },
      { args: { ...base, color: 'transparent' }, error: ['color:'] },
      { args: { ...base, opacity: 1.01 }, error: ['opacity: must be ≤ 1'] },
      {
        args: { ...base, label: 'x'.repeat(201) },
        error: ['label: must be at most 200 characters'],
      },
      { args: { ...base, temporary_ms: 99 }, error: ['temporary_ms: must be ≥ 100'] },
      { args: { ...base, temporary_ms: 600001 }, error: ['temporary_ms: must be ≤ 600000'] },
      { args: { ...base, monitor_index: -1 }, error: ['monitor_index: must be ≥ 0'] },
      { args: { ...base, click_through: 'yes' }, error: ['click_through: must be a boolean'] },
      { args: { ...base, colour: 'red' }, error: ['colour: is not a known field'] },
      { args: 'red box', error: ['(root): must be an object'] },
    ],
  );
});

describe('remove_overlay / clear_overlays input', () => {
  schemaTable(
    'remove_overlay',
    [
      { args: { overlay_id: 'ov-1' } },
      { args: { overlay_id: '3f2c9a1e-0b7d-4c1a-9f00-1234567890ab' } },
    ],
    [
      { args: {}, error: ['overlay_id: is required'] },
      { args: { overlay_id: '' }, error: ['overlay_id: must be at least 1 character'] },
      { args: { overlay_id: 'a b' }, error: ['overlay_id: must contain only'] },
      { args: { overlay_id: 'a'.repeat(129) }, error: ['overlay_id: must be at most 128'] },
      { args: { overlay_id: 'a', all: true }, error: ['all: is not a known field'] },
    ],
  );
  schemaTable(
    'clear_overlays',
    [{ args: {} }, { args: undefined }],
    [{ args: { force: true }, error: ['force: is not a known field'] }],
  );
});

describe('batch_overlay input', () => {
  schemaTable(
    'batch_overlay',
    [
      {
        args: { overlays: [base] },
        expect: { one_at_a_time: false, overlays: [{ opacity: 0.5 }] },
      },
      { args: { overlays: Array.from({ length: 100 }, () => base), one_at_a_time: true } },
      // The floor: at least 5,000 overlays in one call.
      {
        args: {
          overlays: Array.from({ length: 10_000 }, () => ({ x: 1.5, y: 2, width: 3, height: 4 })),
        },
      },
    ],
    [
      { args: { overlays: [] }, error: ['overlays: must have at least 1 item'] },
      {
        args: { overlays: Array.from({ length: 10_001 }, () => base) },
        error: ['overlays: must have at most 10000 items'],
      },
      {
        args: { overlays: [base, { ...base, x: -5, extra: 1 }] },
        error: ['overlays[1].x: must be ≥ 0', 'overlays[1].extra: is not a known field'],
      },
    ],
  );
});
