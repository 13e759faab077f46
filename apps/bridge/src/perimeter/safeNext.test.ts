// Where sign-in may send the browser next: only a path on this bridge, checked again after the URL
// parser has resolved dot segments and dropped what it ignores.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeNext } from './safeNext.js';

describe('safeNext', () => {
  it('keeps paths on this bridge', () => {
    expect(safeNext('/config?tab=tokens#new')).toBe('/config?tab=tokens#new');
    expect(safeNext('/')).toBe('/');
    expect(safeNext('/people/../settings')).toBe('/settings');
    // %2f is not a separator to the URL parser: one segment, on this origin.
    expect(safeNext('/%2f%2fevil.example')).toBe('/%2f%2fevil.example');
  });
  it.each([
    undefined,
    '',
    'https://evil.example/',
    '//evil.example/',
    '/\\evil.example',
    '/./\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    'config',
    `/${'x'.repeat(3000)}`,
    // Dot segments resolved away leave `//evil…`: another host to a browser.
    '/.//evil.example/phish',
    '/x/..//evil.example',
    '/%2e//evil.example',
    '/%2E//evil.example',
    '/.%2e//evil.example',
    '/a/%2e%2e//evil.example',
    // Tabs, newlines and spaces are dropped or kept by the parser; either could hide a trick.
    '/\t/evil.example',
    '/.\t//evil.example',
    '/\n/evil.example',
    '/.\r\n//evil.example',
    ' /config',
  ])('sends %j to the viewer instead', (next) => {
    expect(safeNext(next)).toBe('/');
  });

  it('never answers with a path a browser would take to another host', () => {
    const staysHome = (next: string): boolean => {
      const url = new URL(next, 'https://bridge.example');
      return (
        next.startsWith('/') &&
        !next.startsWith('//') &&
        url.origin === 'https://bridge.example' &&
        !url.pathname.startsWith('//')
      );
    };
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (tail) =>
        [tail, `/${tail}`, `//${tail}`, `/\\${tail}`, `/./${tail}`, `/%2e/${tail}`].every((raw) =>
          staysHome(safeNext(raw)),
        ),
      ),
    );
  });
});
