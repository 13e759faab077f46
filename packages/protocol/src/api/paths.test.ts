import { describe, expect, it } from 'vitest';
import { PAGES, PAGE_ENTRIES, pageEntry } from './paths.js';

describe('pageEntry', () => {
  it('answers every page with its entry, and one recording with the console', () => {
    for (const [path, entry] of Object.entries(PAGE_ENTRIES)) expect(pageEntry(path)).toBe(entry);
    expect(pageEntry(`${PAGES.recordings}/rec_1`)).toBe('console.html');
  });

  it('answers nothing else', () => {
    for (const path of [
      '/recordings/',
      '/recordings/a/b',
      '/recordingsx',
      '/audit/1',
      '/nope',
      '/constructor',
      '/hasOwnProperty',
    ]) {
      expect(pageEntry(path), path).toBeUndefined();
    }
  });
});
