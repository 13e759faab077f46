// The person's screens: "Detect my screens" asks the browser (Window Management API) and lays the
// monitors out for them; otherwise, or as well, a screen is added by typing its size. Each screen
// is one monitor of the layout; its size (CSS pixels) sets the viewer window's scale.
import { MAX_DESKTOP_PX, MAX_LAYOUT_MONITORS } from '@overlay-companion/protocol';
import { useState, type Dispatch, type FormEvent } from 'react';
import { ErrorMessage, StatusMessage } from '../../common/Alert.js';
import { TextField } from '../../common/Field.js';
import type { EditorEvent } from './editorState.js';
import { detectScreens, screenDetailsSupported, type DetailedScreen } from './screenDetails.js';

export interface ScreensSectionProps {
  monitorCount: number;
  dispatch: Dispatch<EditorEvent>;
  /** The screens the browser listed (kept for placing the windows). */
  onDetected: (screens: DetailedScreen[]) => void;
}

function parseSize(text: string): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= MAX_DESKTOP_PX ? n : null;
}

export function ScreensSection({ monitorCount, dispatch, onDetected }: ScreensSectionProps) {
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [width, setWidth] = useState('1920');
  const [height, setHeight] = useState('1080');
  const [errors, setErrors] = useState<{ width?: string; height?: string }>({});
  const full = monitorCount >= MAX_LAYOUT_MONITORS;

  const detect = () => {
    if (busy) return;
    setBusy(true);
    setProblem(null);
    setNotice(null);
    detectScreens().then(
      (outcome) => {
        setBusy(false);
        if (!outcome.ok) {
          setProblem(outcome.message);
          return;
        }
        onDetected(outcome.screens);
        dispatch({
          type: 'screensDetected',
          screens: outcome.screens.map((s) => ({
            width: s.width,
            height: s.height,
            label: s.label,
            left: s.left,
            top: s.top,
          })),
        });
        setNotice(
          `Found ${outcome.screens.length} screen${outcome.screens.length === 1 ? '' : 's'}: ${outcome.screens
            .map((s) => `${s.label === '' ? 'screen' : s.label} ${s.width} × ${s.height}`)
            .join(', ')}. The monitors below are laid out as they are, at 1:1.`,
        );
      },
      (thrown: unknown) => {
        setBusy(false);
        setProblem(thrown instanceof Error ? thrown.message : String(thrown));
      },
    );
  };

  const add = (event: FormEvent) => {
    event.preventDefault();
    const w = parseSize(width);
    const h = parseSize(height);
    const sizeError = `Enter a whole number of pixels from 1 to ${MAX_DESKTOP_PX}.`;
    setErrors({
      ...(w === null ? { width: sizeError } : {}),
      ...(h === null ? { height: sizeError } : {}),
    });
    if (w === null || h === null || full) return;
    dispatch({ type: 'screenAdded', screen: { width: w, height: h } });
    setNotice(`Added a ${w} × ${h} screen as monitor ${monitorCount + 1}.`);
  };

  return (
    <section aria-labelledby="layout-screens-title" className="section">
      <h2 id="layout-screens-title">Your screens</h2>
      <p>
        One viewer window per screen shows one monitor of the desktop. Let the browser tell the page
        your screens, or enter each screen’s size (the resolution your system shows, in pixels).
      </p>
      <div className="layout-toolbar">
        <button type="button" className="button" aria-disabled={busy} onClick={detect}>
          {busy ? 'Asking the browser…' : 'Detect my screens'}
        </button>
        {screenDetailsSupported() ? null : (
          <span className="muted">
            This browser cannot list screens; enter their sizes instead.
          </span>
        )}
      </div>
      <ErrorMessage message={problem} />
      <StatusMessage message={notice} />
      <form
        className="form form--inline layout-add-screen"
        aria-labelledby="layout-add-screen-title"
        onSubmit={add}
        noValidate
      >
        <h3 id="layout-add-screen-title" className="layout-add-screen__title">
          Add a screen by hand
        </h3>
        <TextField
          id="screen-width"
          label="Screen width"
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_DESKTOP_PX}
          required
          value={width}
          onChange={setWidth}
          error={errors.width}
        />
        <TextField
          id="screen-height"
          label="Screen height"
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_DESKTOP_PX}
          required
          value={height}
          onChange={setHeight}
          error={errors.height}
        />
        <button type="submit" className="button" aria-disabled={full}>
          Add screen
        </button>
        {full ? (
          <p className="muted">A layout holds at most {MAX_LAYOUT_MONITORS} monitors.</p>
        ) : null}
      </form>
    </section>
  );
}
