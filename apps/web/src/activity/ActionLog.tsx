// The action log: what the person's AI clients did on the desktop, newest first — time, tool,
// the AI's reason when it gave one, what it was asked to do, the decision and who approved —
// read from the bridge's audit log (GET /api/audit, the person's own tool calls), the same
// record the console's audit page shows (one line: ActionLogEntry.tsx). Re-read while open
// whenever the bridge reports a call (ai_clients) and every few seconds; a panel over the
// desktop area, like the menu.
import { AuditPage as AuditPageAnswer, type AuditEntryView } from '@overlay-companion/protocol';
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { api } from '../net/api.js';
import { useMe } from '../pages/common/useMe.js';
import { errorText } from '../pages/common/errors.js';
import { NO_FILTERS, auditListPath } from '../pages/console/audit/auditQuery.js';
import { controlStore } from '../store/control.js';
import { viewerPrefsStore } from '../store/viewerPrefs.js';
import { focusDesktop } from '../menu/ClientMenu.js';
import { ActionLogEntry } from './ActionLogEntry.js';

const REFRESH_MS = 5_000;

export function ActionLog() {
  const open = useStore(viewerPrefsStore, (s) => s.logOpen);
  const calls = useStore(controlStore, (s) => s.aiClients);
  const { me } = useMe();
  const [entries, setEntries] = useState<readonly AuditEntryView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const personId = me?.person.id;

  useEffect(() => {
    if (!open || personId === undefined) return undefined;
    let live = true;
    const read = () => {
      const path = auditListPath({ ...NO_FILTERS, kind: 'tool_call', person_id: personId });
      api.get(path, AuditPageAnswer).then(
        (page) => {
          if (!live) return;
          setEntries(page.entries);
          setError(null);
        },
        (thrown: unknown) => {
          if (live) setError(errorText(thrown));
        },
      );
    };
    read();
    const timer = setInterval(read, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
    // `calls` changes when the bridge reports a call: read again then.
  }, [open, personId, calls]);

  if (!open) return null;
  const close = () => {
    viewerPrefsStore.getState().logToggled(false);
    focusDesktop();
  };
  return (
    <aside
      className="action-log"
      aria-labelledby="action-log-title"
      data-testid="action-log"
      onKeyDown={(event) => {
        // One Escape, one effect: the approval panel leaves a taken Escape alone (escapeAction).
        if (event.key !== 'Escape' || event.defaultPrevented) return;
        event.preventDefault();
        close();
      }}
    >
      <div className="action-log__head">
        <h2 id="action-log-title">What the AI did</h2>
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
      {error !== null && <p role="alert">The log could not be read: {error}</p>}
      {entries === null ? (
        <p>Reading…</p>
      ) : entries.length === 0 ? (
        <p>No AI actions yet.</p>
      ) : (
        <ol className="action-log__list">
          {entries.map((entry) => (
            <ActionLogEntry key={entry.id} entry={entry} />
          ))}
        </ol>
      )}
    </aside>
  );
}

/** Opens and closes the action log (in the status bar on wide windows, in the menu always). */
export function ActionLogButton() {
  const open = useStore(viewerPrefsStore, (s) => s.logOpen);
  return (
    <button
      type="button"
      className="status-bar__button"
      data-testid="action-log-button"
      aria-pressed={open}
      onClick={() => viewerPrefsStore.getState().logToggled()}
    >
      Action log
    </button>
  );
}
