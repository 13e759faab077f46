// React's view of a Playback: a component re-renders only when what it selects changes (the
// event list when the current line changes, not on every tick).
import { useSyncExternalStore } from 'react';
import type { Playback, PlaybackState } from './playback.js';

export function usePlaybackValue<T>(playback: Playback, select: (state: PlaybackState) => T): T {
  return useSyncExternalStore(
    (onChange) => playback.subscribe(onChange),
    () => select(playback.getState()),
  );
}
