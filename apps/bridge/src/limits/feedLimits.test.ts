// FeedSeats against the caps (per token or sign-in, per person; a released seat is free again,
// once), and every close reason the feed sends fitting a WebSocket close frame.
import { describe, expect, it } from 'vitest';
import {
  FEED_MAX_SYNC_BYTES,
  FEED_SOCKETS_PER_CREDENTIAL,
  FEED_SOCKETS_PER_PERSON,
  FeedSeats,
  MAX_CLOSE_REASON_BYTES,
  syncTooLargeReason,
  type FeedHolder,
} from './feedLimits.js';

const holder = (credentialKey: string, personId = 'p1'): FeedHolder => ({
  personId,
  credentialKey,
  credential: credentialKey.startsWith('token:') ? 'token' : 'sign-in',
});

function fill(seats: FeedSeats, who: FeedHolder, count: number): Array<() => void> {
  return Array.from({ length: count }, () => {
    const seat = seats.take(who);
    if (!('release' in seat)) throw new Error(`refused: ${seat.refused}`);
    return seat.release;
  });
}

describe('FeedSeats', () => {
  it('refuses a token past its cap, names it, and lets the next in once one is released', () => {
    const seats = new FeedSeats();
    const releases = fill(seats, holder('token:a'), FEED_SOCKETS_PER_CREDENTIAL);
    expect(seats.take(holder('token:a'))).toEqual({
      refused: `This token already has ${FEED_SOCKETS_PER_CREDENTIAL} overlay feeds open (${FEED_SOCKETS_PER_CREDENTIAL} allowed): close one, then reconnect.`,
    });
    // A refused take holds nothing.
    expect(seats.ofPerson('p1')).toBe(FEED_SOCKETS_PER_CREDENTIAL);
    releases[0]?.();
    releases[0]?.(); // twice is once
    expect(seats.ofPerson('p1')).toBe(FEED_SOCKETS_PER_CREDENTIAL - 1);
    expect('release' in seats.take(holder('token:a'))).toBe(true);
  });

  it('counts a sign-in like a token, and every credential of a person against the person', () => {
    const seats = new FeedSeats();
    const signIn = seats.take(holder('session-hash'));
    expect('release' in signIn).toBe(true);
    let n = 1;
    for (let t = 0; n < FEED_SOCKETS_PER_PERSON; t++) {
      const count = Math.min(FEED_SOCKETS_PER_CREDENTIAL, FEED_SOCKETS_PER_PERSON - n);
      fill(seats, holder(`token:${t}`), count);
      n += count;
    }
    const refused = seats.take(holder('token:fresh'));
    expect(refused).toEqual({
      refused: `You already have ${FEED_SOCKETS_PER_PERSON} overlay feeds open (${FEED_SOCKETS_PER_PERSON} allowed, all tokens and pages): close one, then reconnect.`,
    });
    // Another person is not counted against this one.
    expect('release' in seats.take(holder('token:fresh', 'p2'))).toBe(true);
    if ('release' in signIn) signIn.release();
    expect('release' in seats.take(holder('token:fresh'))).toBe(true);
  });

  it('forgets a person whose feeds have all closed', () => {
    const seats = new FeedSeats();
    for (const release of fill(seats, holder('token:a'), 2)) release();
    expect(seats.ofPerson('p1')).toBe(0);
  });
});

describe('close reasons', () => {
  it('all fit a close frame (123 bytes), with the largest numbers they can show', () => {
    const seats = new FeedSeats();
    fill(seats, holder('token:a'), FEED_SOCKETS_PER_CREDENTIAL);
    fill(seats, holder('session', 'p9'), FEED_SOCKETS_PER_CREDENTIAL);
    const reasons = [
      seats.take(holder('token:a')),
      seats.take(holder('session', 'p9')),
      (() => {
        const full = new FeedSeats();
        for (let t = 0; t < FEED_SOCKETS_PER_PERSON; t++) fill(full, holder(`token:${t}`), 1);
        return full.take(holder('token:x'));
      })(),
    ].map((r) => ('refused' in r ? r.refused : 'not refused'));
    reasons.push(syncTooLargeReason(FEED_MAX_SYNC_BYTES + 1), syncTooLargeReason(2 ** 31));
    expect(reasons.some((r) => r === 'not refused')).toBe(false);
    for (const reason of reasons) {
      expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(MAX_CLOSE_REASON_BYTES);
    }
  });
});
