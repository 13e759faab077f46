// The sign-in page follows `next` only to paths on this origin.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextFromSearch, oidcStartUrl, safeNextPath, signInUrl } from './nextPath.js';

describe('safeNextPath', () => {
  it('keeps same-origin paths with their query and fragment', () => {
    expect(safeNextPath('/config')).toBe('/config');
    expect(safeNextPath('/audit?kind=stop&tool=click_at')).toBe('/audit?kind=stop&tool=click_at');
    expect(safeNextPath('/?headless=1#x')).toBe('/?headless=1#x');
    expect(safeNextPath('/people/../settings')).toBe('/settings');
  });

  it('turns everything else into /', () => {
    for (const raw of [
      null,
      undefined,
      '',
      'config',
      '//evil.example/',
      '///evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      '\\\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/\t/evil.example',
      '/\n/evil.example',
      ' /config',
      '/signin',
      '/setup?x=1',
      `/${'a'.repeat(3000)}`,
    ]) {
      expect(safeNextPath(raw), String(raw)).toBe('/');
    }
  });

  it('never leaves the origin, whatever the input', () => {
    const staysHome = (next: string) =>
      next.startsWith('/') &&
      !next.startsWith('//') &&
      new URL(next, 'https://bridge.example').origin === 'https://bridge.example';
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (tail) =>
        [tail, `/${tail}`, `//${tail}`, `/\\${tail}`].every((raw) => staysHome(safeNextPath(raw))),
      ),
    );
  });
});

describe('signInUrl / nextFromSearch', () => {
  it('round-trips a path through the sign-in page', () => {
    const url = signInUrl('/audit?kind=stop&tool=a%20b');
    expect(url).toBe('/signin?next=%2Faudit%3Fkind%3Dstop%26tool%3Da%2520b');
    expect(nextFromSearch(url.slice(url.indexOf('?')))).toBe('/audit?kind=stop&tool=a%20b');
  });

  it('leaves out next for the viewer and for unsafe paths', () => {
    expect(signInUrl('/')).toBe('/signin');
    expect(signInUrl('//evil.example')).toBe('/signin');
    expect(nextFromSearch('?next=https%3A%2F%2Fevil.example')).toBe('/');
    expect(nextFromSearch('')).toBe('/');
  });
});

describe('oidcStartUrl', () => {
  it('passes a safe next to the OIDC start route', () => {
    expect(oidcStartUrl('/config')).toBe('/api/auth/oidc/start?next=%2Fconfig');
    expect(oidcStartUrl('//evil.example')).toBe('/api/auth/oidc/start?next=%2F');
  });
});
