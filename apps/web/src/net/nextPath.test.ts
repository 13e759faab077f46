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

  // Each of these passes a check made only on the raw string, and becomes `//evil…` (another
  // host) once the URL parser resolves dot segments or drops what it ignores.
  it.each([
    '/.//evil.example/phish',
    '/x/..//evil.example',
    '/%2e//evil.example',
    '/%2E//evil.example',
    '/.%2e//evil.example',
    '/a/%2e%2e//evil.example',
    '/x/%2e%2e/%2e//evil.example',
    '/\\evil.example',
    '/./\\evil.example',
    '/.\t//evil.example',
    '/.\n//evil.example',
    '/\t/evil.example',
    '/\r\n/evil.example',
  ])('turns %j into /', (raw) => {
    expect(safeNextPath(raw)).toBe('/');
    expect(nextFromSearch(`?next=${encodeURIComponent(raw)}`)).toBe('/');
  });

  it('refuses the variants as they arrive in the address bar, decoded once by the query', () => {
    for (const search of [
      '?next=/.//evil.example/phish',
      '?next=/x/..//evil.example',
      '?next=/%2e//evil.example',
      '?next=%2f%2fevil.example',
      '?next=/%2f/evil.example',
      '?next=/%5cevil.example',
      '?next=/%09/evil.example',
      '?next=/.%0a//evil.example',
    ]) {
      expect(nextFromSearch(search), search).toBe('/');
    }
  });

  it('keeps an encoded slash encoded: /%2f%2fevil stays a path on this origin', () => {
    // %2f is not a separator to the URL parser, so this is one path segment here.
    expect(safeNextPath('/%2f%2fevil.example')).toBe('/%2f%2fevil.example');
    expect(safeNextPath('/.%2f%2fevil.example')).toBe('/.%2f%2fevil.example');
  });

  it('never leaves the origin, whatever the input', () => {
    const staysHome = (next: string) =>
      next.startsWith('/') &&
      !next.startsWith('//') &&
      // What the browser does with it: parsed again against the real origin.
      !new URL(next, 'https://bridge.example').pathname.startsWith('//') &&
      new URL(next, 'https://bridge.example').origin === 'https://bridge.example';
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (tail) =>
        [tail, `/${tail}`, `//${tail}`, `/\\${tail}`, `/./${tail}`, `/%2e/${tail}`].every((raw) =>
          staysHome(safeNextPath(raw)),
        ),
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
