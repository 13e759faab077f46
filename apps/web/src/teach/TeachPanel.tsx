// Teach mode's panel: while the AI's request_annotation is open it floats over the desktop area
// (a sibling of the display, never inside the remote canvas) on the side away from the area the
// AI asks about, and shows the AI's prompt as plain text, how to answer, every item drawn (with
// its number on the layer, its desktop position, a note field and Remove), why the last item
// was refused, how many more may be added and the time left, and Done / Cancel. Escape cancels
// while the keyboard is in the panel or nowhere in particular; the tab title says the AI asks.
import { MAX_ANNOTATION_NOTE_CHARS } from '@overlay-companion/protocol';
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { confirmationStore } from '../store/pendingConfirmations.js';
import { viewportStore } from '../store/viewport.js';
import { useNow } from '../ui/useNow.js';
import { watchTeachTitle } from './teachCue.js';
import { teachStore, type TeachItem, type TeachRequest } from './teachStore.js';
import './teach.css';

const TITLE_ID = 'teach-title';
const PROMPT_ID = 'teach-prompt';

export type PanelSide = 'left' | 'right';

/** Left by default (the approval panel floats right), right when the asked area is on the left. */
export function panelSideFor(
  request: Pick<TeachRequest, 'area'>,
  vx: number,
  vw: number,
): PanelSide {
  const area = request.area;
  if (area === null || vw <= 0) return 'left';
  return area.x + area.width / 2 - vx < vw / 2 ? 'right' : 'left';
}

/** "Rectangle 300 × 200 at 120, 40" / "Point at 512, 300". */
export function describeItem(item: Pick<TeachItem, 'kind' | 'x' | 'y' | 'width' | 'height'>) {
  return item.kind === 'point'
    ? `Point at ${item.x}, ${item.y}`
    : `Rectangle ${item.width} × ${item.height} at ${item.x}, ${item.y}`;
}

/** "1:05" for 65 s. */
export function timeLeftText(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

export interface TeachPanelViewProps {
  request: TeachRequest;
  now: number;
  side: PanelSide;
  onMove: () => void;
  /**
   * Where the displayed picture starts and ends down the desktop area (CSS pixels): on a phone
   * the panel is a sheet that fits into the empty band above or below the picture when it can.
   */
  picture?: { top: number; bottom: number };
}

/** The panel for one open request (pure over its props, apart from the store's actions). */
export function TeachPanelView({ request, now, side, onMove, picture }: TeachPanelViewProps) {
  const actions = teachStore.getState();
  const area = request.area;
  const count = request.items.length;
  const full = count >= request.maxItems;
  const onKeyDown = (event: React.KeyboardEvent<HTMLElement>) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    // Ours alone: the approval panel's Escape listener must not deny something as well.
    event.stopPropagation();
    actions.personFinished('cancel');
  };
  return (
    <aside
      className="teach-panel"
      role="dialog"
      aria-labelledby={TITLE_ID}
      aria-describedby={PROMPT_ID}
      data-testid="teach-panel"
      data-side={side}
      style={
        picture === undefined
          ? undefined
          : ({
              '--teach-picture-top': `${picture.top}px`,
              '--teach-picture-bottom': `${picture.bottom}px`,
            } as React.CSSProperties)
      }
      onKeyDown={onKeyDown}
    >
      <div className="teach-panel__head">
        <h2 id={TITLE_ID} className="teach-panel__eyebrow" tabIndex={-1}>
          The AI asks you to point something out
        </h2>
        <button type="button" className="teach-panel__move" onClick={onMove}>
          Move panel
        </button>
      </div>
      {/* The AI's words as text: React escapes them; never markup. */}
      <p id={PROMPT_ID} className="teach-panel__prompt" data-testid="teach-prompt">
        {request.prompt}
      </p>
      {area !== null && (
        <p className="teach-panel__area">
          It asks about the highlighted area: {area.width} × {area.height} at {area.x}, {area.y}
          {area.monitorLabel === null ? '' : ` (${area.monitorLabel})`}.
        </p>
      )}
      <p className="teach-panel__how teach-panel__how--long">
        Drag on the desktop to draw a rectangle; click to place a point. Nothing reaches the desktop
        meanwhile. Keyboard: Tab to the drawing area, move with the arrow keys, Enter places a
        point, R starts and ends a rectangle.
      </p>
      <p className="teach-panel__how teach-panel__how--short">
        Drag to draw a rectangle, tap to place a point.
      </p>
      {count === 0 ? (
        <p className="teach-panel__empty">Nothing pointed out yet.</p>
      ) : (
        <ol className="teach-panel__items" aria-label="What you pointed out">
          {request.items.map((item, i) => (
            <li key={item.key} className="teach-item" data-testid="teach-item">
              <div className="teach-item__head">
                <span className="teach-item__n" aria-hidden="true">
                  {i + 1}
                </span>
                <span className="teach-item__what">{describeItem(item)}</span>
                <button
                  type="button"
                  className="teach-item__remove"
                  aria-label={`Remove item ${i + 1}`}
                  onClick={() => actions.itemRemoved(item.key)}
                >
                  Remove
                </button>
              </div>
              <input
                type="text"
                className="teach-item__note"
                aria-label={`Note for item ${i + 1}`}
                placeholder="Note (optional)"
                maxLength={MAX_ANNOTATION_NOTE_CHARS}
                value={item.note}
                onChange={(event) => actions.noteChanged(item.key, event.target.value)}
              />
            </li>
          ))}
        </ol>
      )}
      <p className="teach-panel__notice" role="status" data-testid="teach-notice">
        {request.notice ?? ''}
      </p>
      <p className="teach-panel__meta" data-testid="teach-count">
        {count} of {request.maxItems}
        {full ? ' (the most the AI asked for)' : ''} · {timeLeftText(request.deadlineAt - now)} left
      </p>
      <div className="teach-panel__actions">
        <button
          type="button"
          className="teach-panel__cancel"
          onClick={() => actions.personFinished('cancel')}
        >
          Cancel
        </button>
        <button
          type="button"
          className="teach-panel__done"
          onClick={() => actions.personFinished('done')}
        >
          Done
        </button>
      </div>
    </aside>
  );
}

/**
 * Escape with the keyboard nowhere in particular (the page itself) cancels too — unless an
 * approval is waiting: its panel floats above this one and that Escape is its Deny.
 */
function useEscapeOnPage(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      const active = document.activeElement;
      if (active !== null && active !== document.body) return;
      if (confirmationStore.getState().pending.length > 0) return;
      event.preventDefault();
      teachStore.getState().personFinished('cancel');
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

function OpenPanel({ request }: { request: TeachRequest }) {
  const now = useNow(true, 1000);
  const [side, setSide] = useState<PanelSide>(() => {
    const { viewport } = viewportStore.getState();
    return panelSideFor(request, viewport.vx, viewport.vw);
  });
  const picture = useStore(
    viewportStore,
    useShallow((s) => ({
      top: Math.round(s.origin.y),
      bottom: Math.round(s.origin.y + s.viewport.vh * s.viewport.scale),
    })),
  );
  useEscapeOnPage();
  // The keyboard comes to the panel when it was nowhere (never taken from the desktop mid-typing).
  useEffect(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) document.getElementById(TITLE_ID)?.focus();
  }, []);
  return (
    <TeachPanelView
      request={request}
      now={now}
      side={side}
      picture={picture}
      onMove={() => setSide((s) => (s === 'left' ? 'right' : 'left'))}
    />
  );
}

/**
 * Says it to screen readers: a live region that exists from page load (one that appears with
 * its text is often not read), holding the prompt while a request is open.
 */
function TeachAnnouncer() {
  const text = useStore(teachStore, (s) =>
    s.request === null
      ? ''
      : `The AI asks you to point something out: ${s.request.prompt}. The panel is after the desktop: press Ctrl+Alt+Shift to leave the desktop, then Tab to it.`,
  );
  return (
    <div className="visually-hidden" aria-live="assertive" data-testid="teach-announcer">
      {text}
    </div>
  );
}

export function TeachPanel() {
  const request = useStore(teachStore, (s) => s.request);
  useEffect(() => watchTeachTitle(teachStore, document), []);
  return (
    <>
      <TeachAnnouncer />
      {request !== null && request.outcome === null && (
        <OpenPanel key={request.id} request={request} />
      )}
    </>
  );
}
