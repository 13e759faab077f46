// Where sign-in may send the browser next: only a path on this bridge.
import { describe, expect, it } from 'vitest';
import { safeNext } from './safeNext.js';

describe('safeNext', () => {
  it('keeps paths on this bridge', () => {
    expect(safeNext('/config?tab=tokens#new')).toBe('/config?tab=tokens#new');
    expect(safeNext('/')).toBe('/');
  });
  it.each([
    undefined,
    'https://evil.example/',
    '//evil.example/',
    '/\\evil.example',
    'javascript:alert(1)',
    'config',
    `/${'x'.repeat(3000)}`,
  ])('sends %j to the viewer instead', (next) => {
    expect(safeNext(next)).toBe('/');
  });
});
