// /layout: the person's monitor layout and privacy masks. Loads GET /api/layout, lets the person
// arrange one rectangle per screen over the desktop and draw masks (DesktopCanvas, or the exact
// values in the lists), checks the result with the protocol's own schema, saves it with PUT, and
// opens one viewer window per monitor of what was saved.
import {
  API,
  LayoutAnswer,
  MonitorLayout,
  SavedLayout,
  layoutBounds,
  type PrivacyMask,
} from '@overlay-companion/protocol';
import { useEffect, useReducer, useState } from 'react';
import { api } from '../../../net/api.js';
import { ErrorMessage, StatusMessage } from '../../common/Alert.js';
import { errorText } from '../../common/errors.js';
import { useLoad } from '../../common/useLoad.js';
import { DesktopCanvas } from './DesktopCanvas.js';
import { OpenWindowsSection } from './OpenWindowsSection.js';
import { MaskList, MonitorList } from './RectLists.js';
import { ScreensSection } from './ScreensSection.js';
import { EMPTY_EDITOR, editorReducer, sameLayout, targetName, toLayout } from './editorState.js';
import type { Extent } from './geometry.js';
import type { DetailedScreen } from './screenDetails.js';
import './layout.css';

/**
 * The layout this page edits: one desktop's own (`/layout?desktop=<id>`, its owner or an admin),
 * else the person's own, the map of every desktop they own.
 */
function layoutPath(): string {
  const desktop = new URLSearchParams(window.location.search).get('desktop');
  return desktop === null || desktop === ''
    ? API.layout
    : `${API.layout}?desktop=${encodeURIComponent(desktop)}`;
}

const loadLayout = () => api.get(layoutPath(), LayoutAnswer);

/** The schema's complaints in the page's words: "Monitor 2: overlaps monitor 0 (…)". */
function layoutProblems(input: unknown): string[] {
  const parsed = MonitorLayout.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const [list, index, field] = issue.path;
    const what =
      (list === 'monitors' || list === 'masks') && typeof index === 'number'
        ? targetName(list === 'monitors' ? 'monitor' : 'mask', index, '')
        : String(list ?? 'Layout');
    return `${what}${typeof field === 'string' ? ` ${field}` : ''}: ${issue.message}.`;
  });
}

/** A new mask in the middle of the layout, a quarter of its size (the keyboard's way to add one). */
function middleMask(bounds: Extent): PrivacyMask {
  const width = Math.max(16, Math.round(bounds.width / 4));
  const height = Math.max(16, Math.round(bounds.height / 4));
  return {
    x: Math.round((bounds.width - width) / 2),
    y: Math.round((bounds.height - height) / 2),
    width,
    height,
  };
}

export function LayoutPage() {
  const loaded = useLoad(loadLayout);
  if (loaded.data === undefined) {
    return loaded.error !== null ? (
      <ErrorMessage message={loaded.error} />
    ) : (
      <p role="status">Loading your layout…</p>
    );
  }
  return <LayoutEditor answer={loaded.data} />;
}

function LayoutEditor({ answer }: { answer: LayoutAnswer }) {
  // What the bridge has, or this browser's screen to start from.
  const [state, dispatch] = useReducer(editorReducer, answer, (first) =>
    editorReducer(EMPTY_EDITOR, {
      type: 'loaded',
      layout: first.layout,
      firstScreen: { width: window.screen.width, height: window.screen.height },
    }),
  );
  const [saved, setSaved] = useState<MonitorLayout | null>(answer.layout);
  const [drawing, setDrawing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<string[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [screens, setScreens] = useState<DetailedScreen[]>([]);
  const desktop = answer.desktop;
  // Escape ends drawing wherever the focus is (after a drag it is on no control).
  useEffect(() => {
    if (!drawing) return undefined;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setDrawing(false);
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [drawing]);
  const bounds = layoutBounds(state);
  const layout = toLayout(state);
  const unsaved = saved === null || !sameLayout(state, saved);

  const save = () => {
    if (busy) return;
    const found = layoutProblems(layout);
    setProblems(found);
    setNotice(null);
    if (found.length > 0) return;
    setBusy(true);
    api.put(layoutPath(), { layout }, SavedLayout).then(
      (stored) => {
        setBusy(false);
        dispatch({ type: 'saved', layout: stored.layout });
        setSaved(stored.layout);
        setNotice(
          `Saved at ${new Date(stored.updated_at).toLocaleTimeString()}: ${stored.layout.monitors.length} monitor${stored.layout.monitors.length === 1 ? '' : 's'}, ${stored.layout.masks.length} privacy mask${stored.layout.masks.length === 1 ? '' : 's'}; the desktop this layout asks for is ${bounds.width} × ${bounds.height}.`,
        );
      },
      (thrown: unknown) => {
        setBusy(false);
        setProblems([errorText(thrown)]);
      },
    );
  };

  return (
    <div className="layout-page">
      <p className="instructions">
        Arrange one rectangle per screen over the remote desktop: each screen’s viewer window shows
        the part of the desktop under its rectangle, and the AI addresses monitors by these numbers.
        Privacy masks black out what they cover in everything the AI sees; only you can change them.
      </p>
      <ScreensSection
        monitorCount={state.monitors.length}
        dispatch={dispatch}
        onDetected={setScreens}
      />

      <section aria-labelledby="layout-desktop-title" className="section">
        <h2 id="layout-desktop-title">Desktop</h2>
        <p>
          {desktop === null
            ? 'The bridge does not know the desktop’s size right now (no viewer is connected); the picture shows the layout’s own extent.'
            : `The desktop is ${desktop.width} × ${desktop.height} pixels now.`}{' '}
          This layout asks for {bounds.width} × {bounds.height}.
        </p>
        <div className="layout-toolbar" role="toolbar" aria-label="Layout">
          <button
            type="button"
            className="button"
            onClick={() => {
              dispatch({ type: 'suggested', detected: screens });
              setAnnouncement(
                'Monitors laid out at their screens’ own sizes, scale 1; the layout asks for a desktop that just holds them.',
              );
            }}
          >
            Suggest
          </button>
          <button
            type="button"
            className="button"
            aria-pressed={drawing}
            onClick={() => setDrawing((on) => !on)}
          >
            Draw privacy masks
          </button>
          <button
            type="button"
            className="button"
            onClick={() => {
              dispatch({ type: 'maskAdded', rect: middleMask(bounds) });
              setAnnouncement(`Mask ${state.masks.length + 1} added in the middle of the layout.`);
            }}
          >
            Add a mask
          </button>
          <button
            type="button"
            className="button button--primary"
            aria-disabled={busy}
            onClick={save}
          >
            {busy ? 'Saving…' : 'Save'}
          </button>
          <span className="layout-toolbar__state" role="status">
            {saved === null ? 'Not saved yet' : unsaved ? 'Unsaved changes' : 'Saved'}
          </span>
        </div>
        {drawing ? (
          <p className="layout-hint">
            Drag on the desktop to draw a mask; press Escape or the button again to stop.
          </p>
        ) : null}
        {problems.length > 0 ? (
          <div className="message message--error" role="alert">
            <p>The layout was not saved:</p>
            <ul>
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
        ) : null}
        <StatusMessage message={notice} />
        <DesktopCanvas
          state={state}
          dispatch={dispatch}
          desktop={desktop}
          drawing={drawing}
          onAnnounce={setAnnouncement}
        />
        <p className="visually-hidden" role="status">
          {announcement}
        </p>
      </section>

      <section aria-labelledby="layout-monitors-title" className="section">
        <h2 id="layout-monitors-title">Monitors</h2>
        <MonitorList state={state} dispatch={dispatch} />
      </section>

      <section aria-labelledby="layout-masks-title" className="section">
        <h2 id="layout-masks-title">Privacy masks</h2>
        <p>
          Pixels under a mask are black in every screenshot the AI takes, and events there are
          withheld from it. The AI cannot move or remove a mask.
        </p>
        <MaskList masks={state.masks} dispatch={dispatch} />
      </section>

      <OpenWindowsSection saved={saved} unsaved={unsaved} screens={screens} />
    </div>
  );
}
