import { describe, expect, it } from 'vitest';
import { schemaTable } from '../testing/schemaTable.js';
import {
  MAX_SCREENSHOT_INTERVAL_MS,
  MIN_SCREENSHOT_INTERVAL_MS,
  TakeScreenshotResult,
  TakeScreenshotViewerResult,
  clampScreenshotInterval,
} from './screen.js';

const region = { x: 0, y: 0, width: 100, height: 50 };

describe('take_screenshot input', () => {
  schemaTable(
    'take_screenshot',
    [
      {
        args: {},
        expect: {
          scale: 1,
          wait_for_stable_ms: 0,
          format: 'png',
          include_overlays: false,
        },
      },
      { args: { region, scale: 0.1, format: 'jpeg', quality: 1, max_dimension: 64 } },
      { args: { full_screen: true, wait_for_stable_ms: 10000, max_dimension: 8192, quality: 100 } },
      { args: { monitor_index: 1, include_overlays: true }, expect: { monitor_index: 1 } },
      { args: { full_screen: false }, expect: { full_screen: false } },
      {
        args: { scale: 4, wait_for_stable_ms: 12.6 },
        expect: { scale: 4, wait_for_stable_ms: 13 },
      },
      {
        args: { region: { x: 0.4, y: 9.5, width: 10.5, height: 20 } },
        expect: { region: { x: 0, y: 10, width: 11, height: 20 } },
      },
    ],
    [
      { args: { scale: 0.05 }, error: ['scale: must be ≥ 0.1'] },
      { args: { scale: 4.5 }, error: ['scale: must be ≤ 4'] },
      { args: { format: 'gif' }, error: ['format: must be one of png, jpeg'] },
      { args: { quality: 0 }, error: ['quality: must be ≥ 1'] },
      { args: { quality: 101 }, error: ['quality: must be ≤ 100'] },
      { args: { max_dimension: 63 }, error: ['max_dimension: must be ≥ 64'] },
      { args: { max_dimension: 8193 }, error: ['max_dimension: must be ≤ 8192'] },
      { args: { wait_for_stable_ms: 10001 }, error: ['wait_for_stable_ms: must be ≤ 10000'] },
      { args: { region: { ...region, width: 0 } }, error: ['region.width: must be ≥ 0.5'] },
      { args: { region: { x: 0, y: 0 } }, error: ['region.width: is required'] },
      { args: { region, full_screen: true }, error: ['full_screen: give either region'] },
      {
        args: { monitor_index: 0, full_screen: true },
        error: ['full_screen: give either monitor_index'],
      },
      { args: { fullscreen: true }, error: ['fullscreen: is not a known field'] },
    ],
  );
});

describe('take_screenshot results', () => {
  const meta = {
    width: 50,
    height: 25,
    region,
    scale: 0.5,
    monitor_index: 0,
    display_scale: 1.25,
    viewport_scroll: { x: 0, y: 0 },
    format: 'png',
    byte_length: 1234,
  };
  it('the MCP result is the metadata and refuses image data', () => {
    expect(TakeScreenshotResult.safeParse(meta).success).toBe(true);
    const withData = TakeScreenshotResult.safeParse({ ...meta, data: 'AAAA' });
    expect(withData.success).toBe(false);
  });
  it('the viewer result carries base64 data', () => {
    expect(TakeScreenshotViewerResult.safeParse({ ...meta, data: 'iVBORw0KGgo=' }).success).toBe(
      true,
    );
    expect(TakeScreenshotViewerResult.safeParse({ ...meta, data: 'not base64!' }).success).toBe(
      false,
    );
    expect(TakeScreenshotViewerResult.safeParse(meta).success).toBe(false);
  });
});

describe('get_display_info / wait_for_screen / set_screenshot_frequency input', () => {
  schemaTable(
    'get_display_info',
    [{ args: {} }],
    [{ args: { monitor: 0 }, error: ['monitor: is not a known field'] }],
  );
  schemaTable(
    'wait_for_screen',
    [
      { args: { until: 'changed' }, expect: { timeout_ms: 5000, stable_ms: 500 } },
      { args: { until: 'stable', region, timeout_ms: 100, stable_ms: 50 } },
      { args: { until: 'stable', timeout_ms: 60000, stable_ms: 10000 } },
    ],
    [
      { args: {}, error: ['until: is required (must be one of changed, stable)'] },
      { args: { until: 'idle' }, error: ['until: must be one of changed, stable'] },
      { args: { until: 'changed', timeout_ms: 99 }, error: ['timeout_ms: must be ≥ 100'] },
      { args: { until: 'changed', timeout_ms: 60001 }, error: ['timeout_ms: must be ≤ 60000'] },
      { args: { until: 'stable', stable_ms: 49 }, error: ['stable_ms: must be ≥ 50'] },
    ],
  );
  schemaTable(
    'set_screenshot_frequency',
    [
      { args: { mode: 'manual' }, expect: { only_on_change: false } },
      { args: { mode: 'periodic', interval_ms: 10, only_on_change: true } },
      { args: { mode: 'on_change', interval_ms: 86_400_000 } },
      { args: { mode: 'periodic', interval_ms: 1.5 }, expect: { interval_ms: 2 } },
    ],
    [
      { args: { mode: 'sometimes' }, error: ['mode: must be one of manual, periodic, on_change'] },
      { args: { mode: 'periodic', interval_ms: -1 }, error: ['interval_ms: must be ≥ 0'] },
      {
        args: { mode: 'periodic', interval_ms: 'often' },
        error: ['interval_ms: must be a number'],
      },
    ],
  );
});

describe('clampScreenshotInterval', () => {
  it.each([
    [undefined, 1000],
    [0, MIN_SCREENSHOT_INTERVAL_MS],
    [249, 250],
    [250, 250],
    [5000, 5000],
    [3_600_000, 3_600_000],
    [86_400_000, MAX_SCREENSHOT_INTERVAL_MS],
  ])('%s ms → %s ms', (requested, applied) => {
    expect(clampScreenshotInterval(requested)).toBe(applied);
  });
});
