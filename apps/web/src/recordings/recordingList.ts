// The recordings the signed-in person may see, read once and shared by every "Show me" link (an
// audit page of 50 rows asks the bridge once); read again when older than FRESH_MS, so a viewer
// open for an hour learns of recordings started since. A bridge without recordings (or a read
// that fails) gives an empty list: the links simply do not appear.
import { useEffect, useState } from 'react';
import { api } from '../net/api.js';
import { RECORDINGS_API, RecordingList, type RecordingSummary } from './recordingsWire.js';

const FRESH_MS = 30_000;

let shared: { at: number; list: Promise<readonly RecordingSummary[]> } | null = null;

export function readRecordingList(now = Date.now()): Promise<readonly RecordingSummary[]> {
  if (shared === null || now - shared.at > FRESH_MS) {
    const list = api.get(RECORDINGS_API, RecordingList).then(
      (answer) => answer.recordings,
      () => [],
    );
    shared = { at: now, list };
  }
  return shared.list;
}

/** The shared list; empty until it arrives. */
export function useRecordingList(): readonly RecordingSummary[] {
  const [recordings, setRecordings] = useState<readonly RecordingSummary[]>([]);
  useEffect(() => {
    let live = true;
    void readRecordingList().then((list) => {
      if (live) setRecordings(list);
    });
    return () => {
      live = false;
    };
  }, []);
  return recordings;
}
