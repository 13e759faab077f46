// A card's thumbnail is asked again after a failed load (the live timeline asks for a moment the
// recording's file may not hold yet): a few times, later each time, each time a new address.
import { describe, expect, it } from 'vitest';
import {
  THUMBNAIL_RETRIES,
  THUMBNAIL_RETRY_STEP_MS,
  thumbnailAttemptSrc,
  thumbnailRetryDelayMs,
} from './CardThumbnail.js';

describe('a card thumbnail that failed to load', () => {
  const src = '/api/recordings/r1/frame?t=1700000000000&width=240';

  it('is first asked as given, then at a new address each retry', () => {
    expect(thumbnailAttemptSrc(src, 0)).toBe(src);
    const retries = [1, 2, 3].map((n) => thumbnailAttemptSrc(src, n));
    expect(retries[0]).toBe(`${src}&again=1`);
    expect(new Set([src, ...retries]).size).toBe(4);
    expect(thumbnailAttemptSrc('/x', 1)).toBe('/x?again=1');
  });

  it('waits longer each time and gives up after the last retry', () => {
    const delays = Array.from({ length: THUMBNAIL_RETRIES + 1 }, (_, n) =>
      thumbnailRetryDelayMs(n),
    );
    expect(delays.slice(0, THUMBNAIL_RETRIES)).toEqual(
      Array.from({ length: THUMBNAIL_RETRIES }, (_, n) => THUMBNAIL_RETRY_STEP_MS * (n + 1)),
    );
    expect(delays[THUMBNAIL_RETRIES]).toBeNull();
  });
});
