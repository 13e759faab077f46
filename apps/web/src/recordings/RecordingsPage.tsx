// /recordings: the recordings the signed-in person may see (desktop, start, length, size, live,
// gaps; one this bridge cannot reach says why, and an admin may remove it from the list:
// UnavailableRecording.tsx), and /recordings/<id>?t=<ms> plays one from that moment — the
// player, the list of its events beside it (click one to jump there) and the AI's timeline under
// it. The file and the event track are read once per recording; the player seeks within them.
// Admins also see what the recordings take (StorageSection).
import { useCallback, useEffect, useState } from 'react';
import { api, AnyAnswer } from '../net/api.js';
import { ErrorMessage } from '../pages/common/Alert.js';
import { ConfirmButton } from '../pages/common/ConfirmButton.js';
import { errorText } from '../pages/common/errors.js';
import { formatDateTime, isoTime } from '../pages/common/time.js';
import { useLoad } from '../pages/common/useLoad.js';
import { useMe } from '../pages/common/useMe.js';
import { followInApp, navigate, useLocationPath } from '../pages/console/navigation.js';
import { Playback, frameTimes, openingAt } from './playback.js';
import { AiTimeline } from './AiTimeline.js';
import { EventList } from './EventList.js';
import { RecordingPlayer } from './RecordingPlayer.js';
import { StorageSection } from './StorageSection.js';
import { RemoveFromList, UnavailableReason, UnavailableView } from './UnavailableRecording.js';
import { formatBytes, formatElapsed } from './recordingText.js';
import {
  RECORDINGS_API,
  RecordingEvents,
  RecordingList,
  recordingPath,
  type PlayerEvent,
  type RecordingSummary,
} from './recordingsWire.js';
import { RECORDINGS_PAGE, parseRecordingsPath } from './showMe.js';
import { idleStretches } from './timeline.js';
import './recordings.css';

const loadList = () => api.get(RECORDINGS_API, RecordingList);

export function RecordingsPage() {
  const path = useLocationPath();
  const { id, t } = parseRecordingsPath(path);
  const list = useLoad(loadList);
  const recordings = list.data?.recordings ?? [];
  const chosen = id === null ? undefined : recordings.find((r) => r.id === id);
  const { me } = useMe();
  const isAdmin = me?.person.role === 'admin';
  const { reload } = list;
  const removed = useCallback(() => {
    navigate(RECORDINGS_PAGE);
    reload();
  }, [reload]);

  return (
    <div className="recordings-page">
      <p>
        Recordings of your desktops: the screen as it was, with the AI&apos;s overlays, pointer and
        every action it took. Pick one to play it; a &ldquo;Show me&rdquo; link on the audit page
        opens the moment of that action.
      </p>
      {list.error !== null ? <ErrorMessage message={list.error} /> : null}
      {id !== null && chosen?.unavailable !== undefined ? (
        <UnavailableView key={id} recording={chosen} isAdmin={isAdmin} onRemoved={removed} />
      ) : id !== null && chosen !== undefined ? (
        <RecordingView key={id} recording={chosen} startAt={t} onDeleted={removed} />
      ) : id !== null && list.data !== undefined ? (
        <ErrorMessage
          message={`There is no recording ${id} you may see (it may have been deleted). Pick one from the list below.`}
        />
      ) : null}
      {list.data === undefined && list.error === null ? <p role="status">Loading…</p> : null}
      {list.data !== undefined ? (
        <>
          {id !== null ? <h2 className="recordings-page__list-title">All recordings</h2> : null}
          <RecordingTable
            recordings={recordings}
            current={id}
            isAdmin={isAdmin}
            onRemoved={removed}
          />
        </>
      ) : null}
      {isAdmin && id === null ? <StorageSection /> : null}
    </div>
  );
}

function gapsText(recording: RecordingSummary): string {
  if (recording.gaps.length === 0) return 'None';
  const seconds = recording.gaps.reduce((sum, gap) => sum + (gap.to - gap.from), 0) / 1000;
  return `${recording.gaps.length} (${Math.round(seconds)} s): ${recording.gaps.map((g) => g.reason).join('; ')}`;
}

export function RecordingTable({
  recordings,
  current,
  isAdmin,
  onRemoved,
}: {
  recordings: readonly RecordingSummary[];
  current: string | null;
  /** Admins may remove a recording this bridge cannot reach from the list. */
  isAdmin: boolean;
  onRemoved: () => void;
}) {
  if (recordings.length === 0) {
    return <p>No recordings yet. A desktop is recorded when its policy says so.</p>;
  }
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Recordings">
      <table className="table" data-testid="recordings-table">
        <thead>
          <tr>
            <th scope="col">Desktop</th>
            <th scope="col">Started</th>
            <th scope="col">Length</th>
            <th scope="col">Size</th>
            <th scope="col">Gaps</th>
            <th scope="col">Play</th>
          </tr>
        </thead>
        <tbody>
          {recordings.map((recording) => {
            const href = `${RECORDINGS_PAGE}/${encodeURIComponent(recording.id)}`;
            return (
              <tr key={recording.id} aria-current={recording.id === current ? 'true' : undefined}>
                <th scope="row" className="table__name">
                  {recording.desktop.name}
                  {recording.live ? (
                    <span className="recording-live" data-testid="recording-live">
                      {' '}
                      ● Recording now
                    </span>
                  ) : null}
                </th>
                <td className="table__nowrap">
                  <time dateTime={isoTime(recording.started_at)}>
                    {formatDateTime(recording.started_at)}
                  </time>
                </td>
                <td className="table__nowrap">{formatElapsed(recording.duration_ms)}</td>
                <td className="table__nowrap">{formatBytes(recording.bytes)}</td>
                <td>{gapsText(recording)}</td>
                <td>
                  {recording.unavailable !== undefined ? (
                    <>
                      <UnavailableReason recording={recording} />{' '}
                      <RemoveFromList
                        recording={recording}
                        isAdmin={isAdmin}
                        onRemoved={onRemoved}
                      />
                    </>
                  ) : (
                    <a
                      href={href}
                      onClick={(event) => followInApp(event, href)}
                      aria-label={`Play the recording of ${recording.desktop.name} from ${formatDateTime(recording.started_at)}`}
                    >
                      Play
                    </a>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

interface Loaded {
  playback: Playback;
  events: PlayerEvent[];
  /** Where it opens without a moment asked for: its first picture (openingAt). */
  opening: number;
}

/** Reads the file and the event track, and makes the playback (disposed when left). */
function useRecording(recording: RecordingSummary): {
  loaded: Loaded | null;
  error: string | null;
} {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let playback: Playback | null = null;
    const read = async () => {
      const [response, events] = await Promise.all([
        fetch(recordingPath(recording.id, '/stream'), { credentials: 'same-origin' }),
        api.get(recordingPath(recording.id, '/events'), RecordingEvents),
      ]);
      if (!response.ok) {
        throw new Error(
          `The recording's file could not be read (HTTP ${response.status}). Reload the page to try again.`,
        );
      }
      const text = await response.text();
      const frames = frameTimes(text);
      if (!live) return;
      const origin = frames.first ?? recording.started_at;
      playback = new Playback(text, origin);
      // The library's duration is its last frame's time, keep-alives included.
      const activity = [...frames.drawn, ...events.map((e) => e.t)];
      playback.setIdleStretches(idleStretches(activity, origin, Infinity));
      setLoaded({ playback, events, opening: openingAt(frames, origin) });
    };
    read().catch((thrown: unknown) => {
      if (live) setError(errorText(thrown));
    });
    return () => {
      live = false;
      playback?.dispose();
    };
  }, [recording]);
  return { loaded, error };
}

function RecordingView({
  recording,
  startAt,
  onDeleted,
}: {
  recording: RecordingSummary;
  startAt: number | null;
  onDeleted: () => void;
}) {
  const { loaded, error } = useRecording(recording);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const label = `Recording of ${recording.desktop.name}, ${formatDateTime(recording.started_at)}`;

  // Open at the moment asked for (a "Show me" link), or else at the first picture, once the
  // frames up to it are parsed: the player draws nothing until it is seeked.
  useEffect(() => {
    if (loaded === null) return undefined;
    const { playback } = loaded;
    const target = startAt ?? loaded.opening;
    let done = false;
    const goWhenThere = () => {
      const state = playback.getState();
      if (done || (state.end < target && !state.loaded)) return;
      done = true;
      playback.seek(target);
    };
    goWhenThere();
    const stop = playback.subscribe(goWhenThere);
    return stop;
  }, [loaded, startAt]);

  const remove = useCallback(() => {
    api
      .del(recordingPath(recording.id), undefined, AnyAnswer)
      .then(onDeleted, (thrown: unknown) => setDeleteError(errorText(thrown)));
  }, [recording.id, onDeleted]);

  return (
    <div className="recording-view">
      <h2 className="recording-view__title">{label}</h2>
      <p className="recording-view__actions">
        {recording.live ? null : (
          <>
            <a className="button" href={recordingPath(recording.id, '/export.mp4')} download>
              Export video (MP4)
            </a>{' '}
          </>
        )}
        <a className="button" href={recordingPath(recording.id, '/export.jsonl')} download>
          Export events (JSON lines)
        </a>{' '}
        <a className="button" href={recordingPath(recording.id, '/stream')} download>
          Download the recording
        </a>{' '}
        <ConfirmButton
          label="Delete"
          accessibleLabel={`Delete the ${label}`}
          question="Delete this recording? It cannot be brought back."
          confirmLabel="Delete recording"
          onConfirm={remove}
        />
      </p>
      {recording.live ? (
        <p className="muted">
          This desktop is still being recorded: the player shows the recording up to when you opened
          it. Reload the page for what came since.
        </p>
      ) : null}
      {deleteError !== null ? <ErrorMessage message={deleteError} /> : null}
      {error !== null ? <ErrorMessage message={error} /> : null}
      {loaded === null && error === null ? <p role="status">Loading the recording…</p> : null}
      {loaded !== null ? (
        <>
          <div className="recording-view__body">
            <RecordingPlayer playback={loaded.playback} events={loaded.events} label={label} />
            <EventList playback={loaded.playback} events={loaded.events} />
          </div>
          <AiTimeline recording={recording} playback={loaded.playback} events={loaded.events} />
        </>
      ) : null}
    </div>
  );
}
