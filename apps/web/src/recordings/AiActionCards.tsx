// The AI's actions as cards, the one definition the player's timeline (AiTimeline) and the
// cockpit's live timeline (LiveAiTimeline) both show: per action, the screen at that moment — the
// bridge's thumbnail from the recording, so what privacy masks hid is black in it as in the file —
// with the click point or the overlay's area marked, then the time and tool, the AI's intent, the
// decision and who made it, the outcome and how long it took; on a request_annotation card, the
// person's teach answer — what they pointed out, marked on the thumbnail too. What a card's
// action button does (seek the player, open the player) is the caller's.
import type { ReactNode } from 'react';
import { clockTime } from '../pages/common/time.js';
import type { AiActionEvent, TeachAnswerEvent } from './recordingsWire.js';
import { recordingPath } from './recordingsWire.js';
import { decisionText } from './actionDecision.js';
import { cardMark, teachAnswerText, teachMarks, type CardMark } from './timeline.js';
import { CardThumbnail } from './CardThumbnail.js';
import './aiCards.css';

/** Thumbnails are asked of the bridge at this width (CSS scales them down where space is short). */
export const THUMB_WIDTH = 240;

/** The bridge's picture of recording `recordingId` at `t`, THUMB_WIDTH wide. */
export function thumbnailPath(recordingId: string, t: number): string {
  return recordingPath(recordingId, `/frame?t=${Math.round(t)}&width=${THUMB_WIDTH}`);
}

/** A mark on the thumbnail: the AI's (`ai-card__point`/`__area`) or the person's (`taught`). */
function Mark({ mark, taught = false }: { mark: CardMark | null; taught?: boolean }) {
  if (mark === null) return null;
  const pct = (v: number) => `${v * 100}%`;
  const by = taught ? ' ai-card__mark--taught' : '';
  return mark.kind === 'point' ? (
    <span
      className={`ai-card__point${by}`}
      aria-hidden="true"
      style={{ left: pct(mark.x), top: pct(mark.y) }}
    />
  ) : (
    <span
      className={`ai-card__area${by}`}
      aria-hidden="true"
      style={{
        left: pct(mark.x),
        top: pct(mark.y),
        width: pct(mark.width),
        height: pct(mark.height),
      }}
    />
  );
}

export function AiActionCards({
  recordingId,
  actions,
  width,
  height,
  answers,
  action: actionButton,
}: {
  recordingId: string;
  actions: readonly AiActionEvent[];
  /** The person's teach answers by the id of the request they answered (teachAnswersByAction). */
  answers?: ReadonlyMap<string, TeachAnswerEvent>;
  /** The desktop's size in desktop pixels (0 while unknown: nothing is marked). */
  width: number;
  height: number;
  /** The card's button or link that takes the person to that moment. */
  action: (action: AiActionEvent) => ReactNode;
}) {
  return (
    <ol className="ai-timeline__cards">
      {actions.map((action, i) => {
        const answer = answers?.get(action.id);
        return (
          <li
            key={`${i}:${action.id}`}
            className="ai-card"
            data-testid="ai-card"
            data-decision={action.decision}
          >
            <div className="ai-card__thumb">
              <CardThumbnail
                src={thumbnailPath(recordingId, action.t)}
                width={THUMB_WIDTH}
                alt={`The screen at ${clockTime(action.t)}`}
              />
              <Mark mark={cardMark(action, width, height)} />
              {answer === undefined
                ? null
                : teachMarks(answer, width, height).map((mark, j) => (
                    <Mark key={j} mark={mark} taught />
                  ))}
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
            </p>
            {answer === undefined ? null : (
              <p
                className="ai-card__answer"
                data-testid="ai-card-answer"
                data-outcome={answer.outcome}
              >
                {answer.question === undefined ? null : (
                  <>
                    <q>{answer.question}</q> —{' '}
                  </>
                )}
                {teachAnswerText(answer)}
              </p>
            )}
            {actionButton(action)}
          </li>
        );
      })}
    </ol>
  );
}
