// The admins' storage view: the bridge's answer parsed as it arrives, the totals against the
// limits and the disk, the oldest, the size per desktop and per person, and the pause when the
// disk is nearly full — in words.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { StorageView, limitsText } from './StorageSection.js';
import { RecordingStorage } from './recordingsWire.js';

const GB = 1_000_000_000;
const answer = {
  location: 'local',
  total_bytes: 3 * GB,
  count: 3,
  live_count: 1,
  limits: {
    max_age_days: 30,
    max_total_bytes: 10 * GB,
    max_desktop_bytes: 2 * GB,
    min_free_bytes: GB,
  },
  held: null,
  disk: { free_bytes: 40 * GB, size_bytes: 100 * GB },
  oldest: {
    id: 'abc',
    desktop: { id: 'dsk_1', name: 'Office PC' },
    started_at: 1_700_000_000_000,
    bytes: GB,
  },
  desktops: [
    {
      desktop: { id: 'dsk_1', name: 'Office PC' },
      bytes: 2 * GB,
      count: 2,
      live: 1,
      oldest_started_at: 1_700_000_000_000,
    },
    {
      desktop: { id: 'dsk_2', name: 'Build box' },
      bytes: GB,
      count: 1,
      live: 0,
      oldest_started_at: 1_700_000_500_000,
    },
  ],
  people: [
    { person: { id: 'p1', name: 'Ada' }, bytes: 2 * GB, count: 2 },
    { person: null, bytes: GB, count: 1 },
  ],
};

describe('the storage view', () => {
  it('parses the answer and refuses one that is not', () => {
    expect(RecordingStorage.parse(answer)).toEqual(answer);
    expect(RecordingStorage.safeParse({ ...answer, total_bytes: -1 }).success).toBe(false);
    expect(RecordingStorage.safeParse({ ...answer, location: 'ftp' }).success).toBe(false);
  });

  it('shows the total against the limits and the disk, the oldest, per desktop and per person', () => {
    const html = renderToStaticMarkup(<StorageView storage={RecordingStorage.parse(answer)} />);
    expect(html).toContain('3 recordings (1 being made now) take <strong>3.0 GB</strong>');
    expect(html).toContain('of the 10 GB they may take');
    expect(html).toContain('The disk has 40 GB free of 100 GB.');
    expect(html).toContain(
      'Recordings are kept for 30 days, at most 10 GB in all and 2.0 GB per desktop, the oldest deleted first; recording pauses while the disk has less than 1.0 GB free.',
    );
    expect(html).toContain('href="/recordings/abc"');
    expect(html).toMatch(/Office PC<\/th><td[^>]*>2 \(one being made\)<\/td><td[^>]*>2.0 GB/);
    expect(html).toMatch(/Build box<\/th><td[^>]*>1<\/td><td[^>]*>1.0 GB/);
    expect(html).toMatch(/Ada<\/th><td[^>]*>2<\/td>/);
    expect(html).toContain('No owner on record');
    expect(html).not.toContain('role="alert"');
  });

  it('says when recording is paused for the disk, and limits that are off', () => {
    const html = renderToStaticMarkup(
      <StorageView
        storage={RecordingStorage.parse({
          ...answer,
          held: 'the disk is nearly full (500 MiB free)',
          disk: null,
        })}
      />,
    );
    expect(html).toContain('role="alert"');
    expect(html).toContain(
      'Recording is paused on every desktop: the disk is nearly full (500 MiB free).',
    );
    expect(html).toContain('The free space on the disk cannot be read.');
    expect(
      limitsText({
        max_age_days: null,
        max_total_bytes: null,
        max_desktop_bytes: null,
        min_free_bytes: 0,
      }),
    ).toBe(
      'Recordings are kept whatever their age, no limit in all and no limit per desktop, the oldest deleted first.',
    );
  });
});
