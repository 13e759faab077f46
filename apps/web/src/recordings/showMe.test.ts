import { describe, expect, it } from 'vitest';
import type { RecordingSummary } from './recordingsWire.js';
import { desktopNameOfDetail, parseRecordingsPath, recordingFor, showMeHref } from './showMe.js';

function recording(
  id: string,
  desktop: string,
  started_at: number,
  ended_at: number | null,
): RecordingSummary {
  return {
    id,
    desktop: { id: `d_${desktop}`, name: desktop },
    started_at,
    ended_at,
    bytes: 1,
    duration_ms: ended_at === null ? 0 : ended_at - started_at,
    gaps: [],
    live: ended_at === null,
  };
}

const list = [
  recording('live', 'Office', 50_000, null),
  recording('old', 'Office', 10_000, 20_000),
  recording('lab', 'Lab', 10_000, 30_000),
];

describe('recordingFor', () => {
  it('matches the desktop by id or by name and the time inside the recording', () => {
    expect(recordingFor(list, { at: 15_000, desktopId: 'd_Office' })?.id).toBe('old');
    expect(recordingFor(list, { at: 15_000, desktopName: 'Lab' })?.id).toBe('lab');
    expect(recordingFor(list, { at: 10_000, desktopName: 'Office' })?.id).toBe('old');
    expect(recordingFor(list, { at: 20_000, desktopName: 'Office' })?.id).toBe('old');
  });

  it('finds nothing between recordings, on another desktop, or without a desktop', () => {
    expect(recordingFor(list, { at: 25_000, desktopName: 'Office' })).toBeNull();
    expect(recordingFor(list, { at: 15_000, desktopName: 'Attic' })).toBeNull();
    expect(recordingFor(list, { at: 15_000 })).toBeNull();
  });

  it('counts a live recording up to now', () => {
    expect(recordingFor(list, { at: 60_000, desktopName: 'Office' }, 70_000)?.id).toBe('live');
    expect(recordingFor(list, { at: 80_000, desktopName: 'Office' }, 70_000)).toBeNull();
  });

  it('prefers the newest when recordings overlap', () => {
    const overlapping = [...list, recording('newer', 'Office', 12_000, 18_000)];
    expect(recordingFor(overlapping, { at: 15_000, desktopName: 'Office' })?.id).toBe('newer');
  });
});

describe('links', () => {
  it('writes and reads /recordings/<id>?t=<ms>', () => {
    const href = showMeHref('rec 1/2', 1234.4);
    expect(href).toBe('/recordings/rec%201%2F2?t=1234');
    expect(parseRecordingsPath(href)).toEqual({ id: 'rec 1/2', t: 1234 });
    expect(parseRecordingsPath('/recordings')).toEqual({ id: null, t: null });
    expect(parseRecordingsPath('/recordings/abc/')).toEqual({ id: 'abc', t: null });
    expect(parseRecordingsPath('/recordings/abc?t=nope')).toEqual({ id: 'abc', t: null });
    expect(parseRecordingsPath('/recordings/%E0%A4%A')).toEqual({ id: null, t: null });
  });

  it("reads the desktop's name from an audit detail", () => {
    expect(desktopNameOfDetail('desktop Office')).toBe('Office');
    expect(desktopNameOfDetail('desktop Office · standing permission\nintent: x')).toBe('Office');
    expect(desktopNameOfDetail('intent: x')).toBeUndefined();
    expect(desktopNameOfDetail(null)).toBeUndefined();
  });
});
