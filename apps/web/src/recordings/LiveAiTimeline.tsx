// The AI's timeline in the cockpit (the full viewer), live: a "Timeline" button beside the
// recording indicator while this desktop is recorded, opening a panel with every AI action of the
// recording being made as a card (AiActionCards — the same cards as the player's timeline, with
// the person's teach answers), read again every LIVE_REFRESH_MS and whenever the bridge reports
// an AI call. Thumbnails are the recording's pictures, so privacy masks hold in them as in the
// file. A card's "Open" link opens the player at that moment in another tab, the desktop staying
// here. Escape closes the panel and gives the focus back to its button.
import { useEffect, useId, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { api } from '../net/api.js';
import { errorText } from '../pages/common/errors.js';
import { clockTime } from '../pages/common/time.js';
import { controlStore } from '../store/control.js';
import { desktopStateStore } from '../store/desktopState.js';
import { useDisplay } from '../store/index.js';
import { AiActionCards } from './AiActionCards.js';
import { LIVE_REFRESH_MS, liveRecordingOf } from './liveTimeline.js';
import {
  RECORDINGS_API,
  RecordingEvents,
  RecordingList,
  recordingPath,
  type AiActionEvent,
  type TeachAnswerEvent,
} from './recordingsWire.js';
import { showMeHref } from './showMe.js';
import { aiActions, teachAnswersByAction } from './timeline.js';
import './liveTimeline.css';

interface Live {
  recordingId: string | null;
  actions: readonly AiActionEvent[];
  /** The person's teach answers, by the request they answered. */
  answers: ReadonlyMap<string, TeachAnswerEvent>;
  error: string | null;
}

const NO_ANSWERS: ReadonlyMap<string, TeachAnswerEvent> = new Map();

/** Reads the desktop's live recording and its AI actions while `open`. */
function useLiveActions(open: boolean, desktopId: string | undefined): Live | null {
  const calls = useStore(controlStore, (s) => s.aiClients);
  const [live, setLive] = useState<Live | null>(null);
  const recordingId = useRef<string | null>(null);

  useEffect(() => {
    if (!open || desktopId === undefined) return undefined;
    let current = true;
    const read = async () => {
      try {
        const list = await api.get(RECORDINGS_API, RecordingList);
        const recording = liveRecordingOf(list.recordings, desktopId);
        recordingId.current = recording?.id ?? null;
        if (recording === null) {
          if (current)
            setLive({ recordingId: null, actions: [], answers: NO_ANSWERS, error: null });
          return;
        }
        const events = await api.get(recordingPath(recording.id, '/events'), RecordingEvents);
        if (current)
          setLive({
            recordingId: recording.id,
            actions: aiActions(events),
            answers: teachAnswersByAction(events),
            error: null,
          });
      } catch (thrown) {
        if (current)
          setLive((before) => ({
            recordingId: before?.recordingId ?? null,
            actions: before?.actions ?? [],
            answers: before?.answers ?? NO_ANSWERS,
            error: errorText(thrown),
          }));
      }
    };
    void read();
    const timer = setInterval(() => void read(), LIVE_REFRESH_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
    // `calls` changes when the bridge reports an AI call: read again at once.
  }, [open, desktopId, calls]);

  return open ? live : null;
}

export function LiveAiTimeline() {
  const recording = useStore(desktopStateStore, (s) => s.people?.recording ?? null);
  const desktopId = useStore(desktopStateStore, (s) => s.people?.desktop.id);
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const live = useLiveActions(open, desktopId);
  const width = useDisplay((s) => s.desktopWidth);
  const height = useDisplay((s) => s.desktopHeight);
  const count = live?.actions.length ?? 0;

  // New cards come in at the end: keep the newest in view when the person was reading the end.
  useEffect(() => {
    const el = list.current;
    if (el === null) return;
    const nearEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 200;
    if (nearEnd) el.scrollTop = el.scrollHeight;
  }, [count]);

  if (recording?.on !== true && !open) return null;
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  return (
    <>
      <button
        ref={button}
        type="button"
        className="status-bar__button live-timeline__button"
        aria-expanded={open}
        data-testid="live-timeline-button"
        onClick={() => setOpen((was) => !was)}
        // The button keeps the focus when it opens the panel: Escape closes it from here too.
        onKeyDown={(event) => {
          if (event.key !== 'Escape' || !open || event.defaultPrevented) return;
          event.preventDefault();
          close();
        }}
      >
        Timeline
      </button>
      {open ? (
        <section
          className="live-timeline"
          aria-labelledby={titleId}
          data-testid="live-timeline"
          onKeyDown={(event) => {
            // One Escape, one effect: the approval panel leaves a taken Escape alone.
            if (event.key !== 'Escape' || event.defaultPrevented) return;
            event.preventDefault();
            close();
          }}
        >
          <div className="live-timeline__head">
            <h2 id={titleId}>What the AI did{live !== null ? ` (${count})` : ''}</h2>
            <button type="button" onClick={close}>
              Close
            </button>
          </div>
          {live?.error != null ? (
            <p role="alert">The timeline could not be read: {live.error}</p>
          ) : null}
          <div className="live-timeline__cards" ref={list}>
            {live === null ? (
              <p>Reading…</p>
            ) : live.recordingId === null ? (
              <p>
                This desktop is not being recorded now: the timeline shows a recording’s actions.
              </p>
            ) : count === 0 ? (
              <p>No AI actions yet in this recording.</p>
            ) : (
              <AiActionCards
                recordingId={live.recordingId}
                actions={live.actions}
                answers={live.answers}
                width={width}
                height={height}
                action={(action) => (
                  <a
                    className="button"
                    href={showMeHref(live.recordingId ?? '', action.t)}
                    target="_blank"
                    rel="noopener"
                    aria-label={`Open ${action.tool} at ${clockTime(action.t)} in the player (new tab)`}
                  >
                    Open
                  </a>
                )}
              />
            )}
          </div>
        </section>
      ) : null}
    </>
  );
}
