// The mirror's Approve / Deny (ApprovalsElsewhere.tsx) follow the control window panel's rules:
// untrusted presses never answer, Approve is armed only a moment after a request came to the
// front (kept while the same request stays in front, restarted when another one comes there).
import { describe, expect, it } from 'vitest';
import { pressAnswers, waitingElsewhere } from './answerElsewhere.js';
import { APPROVE_ARM_MS } from './ConfirmDialog.js';

const click = (id: string) => ({ title: 'Click', deadline_in_ms: 20_000, request_id: id });

describe('pressAnswers', () => {
  it('never answers an untrusted press, Approve or Deny', () => {
    expect(pressAnswers({ isTrusted: false }, true, 0, 60_000)).toBe(false);
    expect(pressAnswers({ isTrusted: false }, false, 0, 60_000)).toBe(false);
  });

  it('arms Approve only after the delay; Deny answers at once', () => {
    expect(pressAnswers({ isTrusted: true }, true, 1_000, 1_000 + APPROVE_ARM_MS - 1)).toBe(false);
    expect(pressAnswers({ isTrusted: true }, true, 1_000, 1_000 + APPROVE_ARM_MS)).toBe(true);
    expect(pressAnswers({ isTrusted: true }, false, 1_000, 1_000)).toBe(true);
  });
});

describe('waitingElsewhere', () => {
  it('keeps when the front request came to the front while it stays there', () => {
    const first = waitingElsewhere([], [click('a'), click('b')], 100);
    expect(first.map((r) => r.frontAt)).toEqual([100, 100]);
    const later = waitingElsewhere(first, [click('a'), click('b')], 5_000);
    expect(later[0]).toMatchObject({ request_id: 'a', frontAt: 100, receivedAt: 5_000 });
  });

  it('restarts the arming when the next request comes to the front (a double-click cannot approve it)', () => {
    const first = waitingElsewhere([], [click('a'), click('b')], 100);
    const next = waitingElsewhere(first, [click('b')], 5_000);
    expect(next[0]).toMatchObject({ request_id: 'b', frontAt: 5_000 });
    expect(pressAnswers({ isTrusted: true }, true, next[0]?.frontAt ?? 0, 5_010)).toBe(false);
  });

  it('restarts it for a request without an id', () => {
    const first = waitingElsewhere([], [{ title: 'Run?', deadline_in_ms: 1 }], 100);
    expect(waitingElsewhere(first, [{ title: 'Run?', deadline_in_ms: 1 }], 900)[0]?.frontAt).toBe(
      900,
    );
  });
});
