import { describe, expect, it } from 'vitest';
import { RecordingEvents } from './recordingsWire.js';
import { frameTimes, openingAt } from './playback.js';

describe('the event track as the player reads it', () => {
  it('keeps known kinds, sorts by time, and keeps a kind it does not know as other', () => {
    const parsed = RecordingEvents.parse({
      events: [
        { t: 20, kind: 'stop', by: 'Ada' },
        { t: 10, kind: 'overlay.removed', id: 'a' },
        { t: 15, kind: 'masks', rects: [] },
        { t: 16, kind: 'overlay.drawn', id: 'b' }, // no rect: not an overlay the player can draw
      ],
    });
    expect(parsed).toEqual([
      { t: 10, kind: 'overlay.removed', id: 'a' },
      { t: 15, kind: 'other', name: 'masks' },
      { t: 16, kind: 'other', name: 'overlay.drawn' },
      { t: 20, kind: 'stop', by: 'Ada' },
    ]);
  });

  it('reads a teach answer with what the person pointed out, and one written before it had that', () => {
    const marks = [
      { kind: 'rect', x: 1, y: 2, width: 3, height: 4, note: '[redacted: 4 characters]' },
      { kind: 'point', x: 5, y: 6 },
    ];
    const full = {
      t: 1,
      kind: 'teach.answer',
      answer: 'pointed out 2 items',
      by: 'Ada',
      annotations: marks,
    };
    const old = { t: 2, kind: 'teach.answer', question: 'Where?', answer: 'here' };
    expect(RecordingEvents.parse({ events: [full, old] })).toEqual([full, old]);
    // A mark that is not one the player can draw makes the event one it does not show.
    const odd = { ...full, annotations: [{ kind: 'circle', x: 1, y: 2 }] };
    expect(RecordingEvents.parse({ events: [odd] })).toEqual([
      { t: 1, kind: 'other', name: 'teach.answer' },
    ]);
  });

  it('refuses an event without a time', () => {
    expect(RecordingEvents.safeParse({ events: [{ kind: 'stop' }] }).success).toBe(false);
  });
});

describe('frameTimes', () => {
  const image = `3.img,1.1,2.14,1.0,9.image/png,1.0,1.0;4.blob,1.1,200.${'A'.repeat(200)};3.end,1.1;`;

  it("reads the frames' timestamps of a Guacamole protocol recording", () => {
    const text = `4.size,1.0,3.800,3.600;${image}4.sync,13.1700000000000;${image}4.sync,13.1700000000040,1.1;`;
    expect(frameTimes(text)).toEqual({
      first: 1_700_000_000_000,
      drawn: [1_700_000_000_000, 1_700_000_000_040],
    });
  });

  it('does not count keep-alives or a blinking cursor as activity', () => {
    const text =
      '4.sync,13.1700000000000;3.nop;4.sync,13.1700000001000;' +
      '4.rect,1.0,2.10,2.10,1.8,2.16;5.cfill,2.14,1.0,1.0,1.0,1.0,3.255;4.sync,13.1700000002000;' +
      `${image}4.sync,13.1700000009000;`;
    expect(frameTimes(text)).toEqual({ first: 1_700_000_000_000, drawn: [1_700_000_009_000] });
    expect(frameTimes('')).toEqual({ first: null, drawn: [] });
  });
});

describe('openingAt: where a recording opened from the list is shown', () => {
  it('is its first frame that draws a picture, not the black frames before it', () => {
    const image = `3.img,1.1,2.14,1.0,9.image/png,1.0,1.0;4.blob,1.1,200.${'A'.repeat(200)};3.end,1.1;`;
    const blackFirst = `4.sync,13.1700000000000;3.nop;4.sync,13.1700000001000;${image}4.sync,13.1700000002000;`;
    expect(openingAt(frameTimes(blackFirst), 5)).toBe(1_700_000_002_000);
    const pictureFirst = `${image}4.sync,13.1700000000000;4.sync,13.1700000001000;`;
    expect(openingAt(frameTimes(pictureFirst), 5)).toBe(1_700_000_000_000);
    // Nothing drawn at all: its first frame; no frame: the origin given.
    expect(openingAt(frameTimes('4.sync,13.1700000000000;'), 5)).toBe(1_700_000_000_000);
    expect(openingAt(frameTimes(''), 5)).toBe(5);
  });
});
