// The recordings the signed-in person may see, read once per page and shared by every "Show me"
// link (an audit page of 50 rows asks the bridge once). A bridge without recordings (or a read
// that fails) gives an empty list: the links simply do not appear.
import { useEffect, useState } from 'react';
import { api } from '../net/api.js';
import { RECORDINGS_API, RecordingList, type RecordingSummary } from './recordingsWire.js';

let shared: Promise<readonly RecordingSummary[]> | null = null;

export function readRecordingList(): Promise<readonly RecordingSummary[]> {
  shared ??= api.get(RECORDINGS_API, RecordingList).then(
    (answer) => answer.recordings,
    () => [],
  );
  return shared;
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
