// The AI's timeline under the player: the recording's AI actions as cards (AiActionCards, the
// same cards the cockpit's live timeline shows, a request's card with the person's teach answer),
// read top to bottom like a story. A card's "Show" moves the player to that moment.
import { clockTime } from '../pages/common/time.js';
import { AiActionCards } from './AiActionCards.js';
import type { Playback } from './playback.js';
import type { PlayerEvent, RecordingSummary } from './recordingsWire.js';
import { aiActions, teachAnswersByAction } from './timeline.js';
import { usePlaybackValue } from './usePlayback.js';

export function AiTimeline({
  recording,
  playback,
  events,
}: {
  recording: RecordingSummary;
  playback: Playback;
  events: readonly PlayerEvent[];
}) {
  const actions = aiActions(events);
  const width = usePlaybackValue(playback, (state) => state.width);
  const height = usePlaybackValue(playback, (state) => state.height);
  return (
    <section className="ai-timeline" aria-labelledby="ai-timeline-title">
      <h3 id="ai-timeline-title">What the AI did ({actions.length})</h3>
      {actions.length === 0 ? <p>The AI took no action in this recording.</p> : null}
      <AiActionCards
        recordingId={recording.id}
        actions={actions}
        answers={teachAnswersByAction(events)}
        width={width}
        height={height}
        action={(action) => (
          <button
            type="button"
            className="button"
            onClick={() => playback.seek(action.t)}
            aria-label={`Show ${action.tool} at ${clockTime(action.t)} in the player`}
          >
            Show
          </button>
        )}
      />
    </section>
  );
}
