import { describe, expect, it } from 'vitest';
import { readsKeyPresses } from './keyReading.js';

describe('readsKeyPresses', () => {
  it('is true only when the bridge says a subscription collects key presses', () => {
    expect(readsKeyPresses(['mouse_click', 'key_press'])).toBe(true);
    expect(readsKeyPresses(['mouse_click', 'screen_change'])).toBe(false);
    expect(readsKeyPresses([])).toBe(false);
    expect(readsKeyPresses(null)).toBe(false);
  });
});
