// The events beside the player, in time order: each a button that moves the player to its
// moment; the line the player is at is marked (aria-current) and kept in view while playing.
import { useEffect, useRef } from 'react';
import { clockTime } from '../pages/common/time.js';
import type { Playback } from './playback.js';
import type { PlayerEvent } from './recordingsWire.js';
import { usePlaybackValue } from './usePlayback.js';
import { eventIndexAt, eventSentence, listedEvents } from './timeline.js';

function seconds(ms: number): string {
  return `${clockTime(ms)}:${String(new Date(ms).getSeconds()).padStart(2, '0')}`;
}

export function EventList({
  playback,
  events,
}: {
  playback: Playback;
  events: readonly PlayerEvent[];
}) {
  const listed = listedEvents(events);
  const current = usePlaybackValue(playback, (state) => eventIndexAt(listed, state.at));
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const item = list.current?.querySelector('[aria-current="true"]');
    if (item instanceof HTMLElement && playback.getState().playing) {
      item.scrollIntoView({ block: 'nearest' });
    }
  }, [current, playback]);

  return (
    <aside className="event-list" aria-labelledby="event-list-title">
      <h3 id="event-list-title">Events</h3>
      {listed.length === 0 ? (
        <p>Nothing happened besides the picture.</p>
      ) : (
        <ol ref={list} className="event-list__items">
          {listed.map((event, i) => (
            <li key={i} aria-current={i === current ? 'true' : undefined}>
              <button
                type="button"
                className={`event-list__item event-list__item--${event.kind.replace('.', '-')}`}
                onClick={() => playback.seek(event.t)}
                data-testid="recording-event"
                data-kind={event.kind}
                data-t={event.t}
              >
                <time dateTime={new Date(event.t).toISOString()}>{seconds(event.t)}</time>{' '}
                {eventSentence(event)}
              </button>
            </li>
          ))}
        </ol>
      )}
    </aside>
  );
}
