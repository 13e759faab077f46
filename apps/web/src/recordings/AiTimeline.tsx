// The AI's timeline under the player: a card per AI action with the screen at that moment (the
// bridge's thumbnail, the click point marked), what the AI said it was doing, the decision and who
// made it, the outcome and how long it took — read top to bottom like a story. A card's "Show"
// moves the player to that moment.
import { clockTime } from '../pages/common/time.js';
import type { Playback } from './playback.js';
import type { AiActionEvent, PlayerEvent, RecordingSummary } from './recordingsWire.js';
import { recordingPath } from './recordingsWire.js';
import { usePlaybackValue } from './usePlayback.js';

const THUMB_WIDTH = 240;

function decisionText(action: AiActionEvent): string {
  return action.approvedBy !== undefined
    ? `${action.decision} by ${action.approvedBy}`
    : action.decision;
}

export function AiTimeline({
  recording,
  playback,
  events,
}: {
  recording: RecordingSummary;
  playback: Playback;
  events: readonly PlayerEvent[];
}) {
  const actions = events.filter((event): event is AiActionEvent => event.kind === 'ai.action');
  const width = usePlaybackValue(playback, (state) => state.width);
  const height = usePlaybackValue(playback, (state) => state.height);
  return (
    <section className="ai-timeline" aria-labelledby="ai-timeline-title">
      <h3 id="ai-timeline-title">What the AI did ({actions.length})</h3>
      {actions.length === 0 ? <p>The AI took no action in this recording.</p> : null}
      <ol className="ai-timeline__cards">
        {actions.map((action, i) => (
          <li
            key={`${i}:${action.id}`}
            className="ai-card"
            data-testid="ai-card"
            data-decision={action.decision}
          >
            <div className="ai-card__thumb">
              <img
                src={recordingPath(
                  recording.id,
                  `/frame?t=${Math.round(action.t)}&width=${THUMB_WIDTH}`,
                )}
                width={THUMB_WIDTH}
                loading="lazy"
                alt={`The screen at ${clockTime(action.t)}`}
              />
              {action.point !== undefined && width > 0 && height > 0 ? (
                <span
                  className="ai-card__point"
                  aria-hidden="true"
                  style={{
                    left: `${((action.point.x + 0.5) / width) * 100}%`,
                    top: `${((action.point.y + 0.5) / height) * 100}%`,
                  }}
                />
              ) : null}
            </div>
            <p className="ai-card__what">
              <time dateTime={new Date(action.t).toISOString()}>{clockTime(action.t)}</time>{' '}
              <code>{action.tool}</code>
              {action.point !== undefined ? ` at ${action.point.x}, ${action.point.y}` : ''}
            </p>
            {action.intent !== undefined ? (
              <p className="ai-card__intent">
                <q>{action.intent}</q>
              </p>
            ) : null}
            <p className={`ai-card__decision ai-card__decision--${action.decision}`}>
              {decisionText(action)}
              {action.outcome !== undefined ? ` · ${action.outcome}` : ''}
              {action.durationMs !== undefined ? ` · ${Math.round(action.durationMs)} ms` : ''}
            </p>
            <button
              type="button"
              className="button"
              onClick={() => playback.seek(action.t)}
              aria-label={`Show ${action.tool} at ${clockTime(action.t)} in the player`}
            >
              Show
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
