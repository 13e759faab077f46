import { describe, expect, it } from 'vitest';
import { attentionTitle } from './attention.js';

describe('attentionTitle', () => {
  it('counts waiting approvals in front of the page title, and restores it', () => {
    expect(attentionTitle('Overlay Companion', 2)).toBe('(2) Approval waiting — Overlay Companion');
    expect(attentionTitle('Overlay Companion', 0)).toBe('Overlay Companion');
  });
});
