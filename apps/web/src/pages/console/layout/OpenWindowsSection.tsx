// "Open windows": one viewer window per monitor of the saved layout, each showing its part of the
// desktop (viewport/monitorWindows.ts, which the plain viewer's offer opens them with too) — put
// on its screen when the browser told the page where the screens are — and the same addresses
// listed with Copy and Open, for browsers that block the pop-ups or for opening them on another
// computer. Full screen needs a key press or click in each window.
import type { MonitorLayout } from '@overlay-companion/protocol';
import { useState } from 'react';
import { monitorWindowUrls, openMonitorWindows } from '../../../viewport/monitorWindows.js';
import { CopyButton } from '../../common/CopyButton.js';
import { ErrorMessage, StatusMessage } from '../../common/Alert.js';
import { targetName } from './editorState.js';
import { screenFor, type DetailedScreen } from './screenDetails.js';

export interface OpenWindowsSectionProps {
  /** The saved layout (windows show what the bridge has, not unsaved edits). */
  saved: MonitorLayout | null;
  unsaved: boolean;
  screens: readonly DetailedScreen[];
}

export function OpenWindowsSection({ saved, unsaved, screens }: OpenWindowsSectionProps) {
  const [notice, setNotice] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const urls = saved === null ? [] : monitorWindowUrls(saved, window.location.origin);

  const open = (indexes: readonly number[]) => {
    if (saved === null) return;
    const blocked = openMonitorWindows(saved, indexes, (i) =>
      screenFor(screens, { label: saved.monitors[i]?.label ?? '' }, i),
    );
    setProblem(
      blocked === 0
        ? null
        : `The browser blocked ${blocked} of ${indexes.length} window${indexes.length === 1 ? '' : 's'}. Allow pop-ups for this site, or use each monitor’s Open button below.`,
    );
    setNotice(
      blocked === indexes.length
        ? null
        : 'Opened. In each window press F11 (or choose Full screen in its menu): browsers go full screen only after a key press or click in that window.',
    );
  };

  return (
    <section aria-labelledby="layout-open-title" className="section">
      <h2 id="layout-open-title">Open windows</h2>
      {saved === null ? (
        <p>Save a layout first; then each monitor gets its viewer window here.</p>
      ) : (
        <>
          <p>
            One viewer per monitor of the saved layout
            {screens.length > 0 ? ', each placed on its screen' : ''}.
            {unsaved ? ' You have unsaved changes: save them to open windows for them.' : ''}
          </p>
          <button
            type="button"
            className="button button--primary"
            onClick={() => open(saved.monitors.map((_, i) => i))}
          >
            Open windows
          </button>
          <ErrorMessage message={problem} />
          <StatusMessage message={notice} />
          <ul className="layout-urls" aria-label="Viewer addresses">
            {saved.monitors.map((m, i) => {
              const name = targetName('monitor', i, m.label ?? '');
              const url = urls[i] ?? '';
              return (
                <li key={url} className="layout-urls__item">
                  <span className="layout-urls__name">{name}</span>
                  <code className="endpoint layout-urls__url">{url}</code>
                  <span className="layout-urls__actions">
                    <CopyButton text={url} label={`Copy the address of ${name}`} />
                    <button
                      type="button"
                      className="button"
                      aria-label={`Open ${name}`}
                      onClick={() => open([i])}
                    >
                      Open
                    </button>
                  </span>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
