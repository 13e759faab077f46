// The viewer's files panel: the desktop's transfer folder (each file with Fetch), "Send files…",
// the transfers under way with progress and Cancel, and — for the person in charge — whether
// others with control may transfer too. A panel over the desktop area like the action log,
// never inside the display. The listing is read when the panel opens, when one of this page's
// transfers to the desktop ends, and every few seconds while it is open (the AI may make files).
import {
  binaryBytesText,
  FILES_API,
  TransferListing,
  type TransferPolicyRequest,
} from '@overlay-companion/protocol';
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { focusDesktop } from '../menu/ClientMenu.js';
import { AnyAnswer, api } from '../net/api.js';
import { errorText } from '../pages/common/errors.js';
import { desktopStateStore } from '../store/desktopState.js';
import { viewerPrefsStore } from '../store/viewerPrefs.js';
import { filesPanelStore } from './filesPanelStore.js';
import { TransferList } from './TransferList.js';
import { fetchFile, maxBytesLearned, sendFiles } from './transfers.js';
import { transferStore } from './transferStore.js';
import './files.css';

const REFRESH_MS = 5_000;

export function FilesPanel() {
  const open = useStore(filesPanelStore, (s) => s.open);
  const desktop = useStore(desktopStateStore, (s) => s.people?.desktop);
  const desktopId = desktop?.id;
  // Counts this desktop's finished transfers: a change means the folder changed.
  const ended = useStore(
    transferStore,
    (s) => s.transfers.filter((t) => t.desktopId === desktopId && t.status !== 'running').length,
  );
  const [listing, setListing] = useState<TransferListing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reads, setReads] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const focusIn = useStore(filesPanelStore, (s) => s.focusIn);

  // Opened from a button: the keyboard goes to the panel (Escape gives it to the desktop).
  useEffect(() => {
    if (!open || !focusIn || heading.current === null) return;
    heading.current.focus();
    filesPanelStore.getState().focusTaken();
  }, [open, focusIn, desktopId]);

  useEffect(() => {
    if (!open || desktopId === undefined) return undefined;
    let live = true;
    const read = () => {
      api.get(FILES_API.list(desktopId), TransferListing).then(
        (answer) => {
          if (!live) return;
          maxBytesLearned(answer.max_bytes);
          setListing(answer);
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
  }, [open, desktopId, ended, reads]);

  if (!open || desktopId === undefined) return null;
  const close = () => {
    filesPanelStore.getState().filesPanelToggled(false);
    focusDesktop();
  };
  const setOthers = (value: boolean) => {
    const body: TransferPolicyRequest = { others_may_transfer: value };
    api.put(FILES_API.policy(desktopId), body, AnyAnswer).then(
      () => setReads((n) => n + 1),
      (thrown: unknown) => setError(errorText(thrown)),
    );
  };
  const may = listing?.may_transfer ?? false;
  return (
    <aside
      className="files-panel"
      aria-labelledby="files-panel-title"
      data-testid="files-panel"
      onKeyDown={(event) => {
        // One Escape, one effect: the approval panel leaves a taken Escape alone (escapeAction).
        if (event.key !== 'Escape' || event.defaultPrevented) return;
        event.preventDefault();
        close();
      }}
    >
      <div className="files-panel__head">
        <h2 id="files-panel-title" ref={heading} tabIndex={-1}>
          Files on {desktop?.name}
        </h2>
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
      {listing !== null && (
        <p className="files-panel__muted">
          The desktop&apos;s folder <code>{listing.folder}</code>; files up to{' '}
          {binaryBytesText(listing.max_bytes)}.
        </p>
      )}
      {error !== null && (
        <p role="alert" data-testid="files-error">
          {error}
        </p>
      )}
      {listing !== null && !may && listing.why_not !== undefined && (
        <p role="note" data-testid="files-why-not">
          {listing.why_not}
        </p>
      )}
      {may && (
        <div className="files-panel__send">
          <button type="button" data-testid="files-send" onClick={() => input.current?.click()}>
            Send files…
          </button>
          <input
            ref={input}
            type="file"
            multiple
            hidden
            data-testid="files-input"
            aria-label="Files to send to the desktop"
            onChange={(event) => {
              const files = event.currentTarget.files;
              if (files !== null) sendFiles(desktopId, [...files]);
              event.currentTarget.value = '';
            }}
          />
          <span className="files-panel__muted">or drop them on the desktop.</span>
        </div>
      )}
      {listing?.in_charge === true && (
        <label className="files-panel__others">
          <input
            type="checkbox"
            checked={listing.others_may_transfer}
            data-testid="files-others"
            onChange={(event) => setOthers(event.currentTarget.checked)}
          />
          Others with control of this desktop may send and fetch files
        </label>
      )}
      <TransferList desktopId={desktopId} />
      {listing === null ? (
        error === null && <p>Reading…</p>
      ) : may && listing.files.length === 0 ? (
        <p data-testid="files-empty">The folder is empty.</p>
      ) : (
        <ul className="files-panel__list" aria-label="Files in the desktop's folder">
          {listing.files.map((file) => (
            <li key={file.name} data-testid="files-entry" data-name={file.name}>
              <span className="files-panel__name">{file.name}</span>
              <span className="files-panel__muted">{binaryBytesText(file.size)}</span>
              <button
                type="button"
                data-testid="files-fetch"
                onClick={() => fetchFile(desktopId, file.name, file.size)}
              >
                Fetch<span className="visually-hidden"> {file.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}

/**
 * Opens and closes the files panel: in the status bar, and in the menu, where phones find it
 * (the bar has no room for it there). From the menu it also closes the menu, which would cover
 * the panel on a phone.
 */
export function FilesButton({ inMenu = false }: { inMenu?: boolean }) {
  const open = useStore(filesPanelStore, (s) => s.open);
  return (
    <button
      type="button"
      className="status-bar__button"
      data-testid={inMenu ? 'menu-files-button' : 'files-button'}
      aria-pressed={open}
      onClick={() => {
        filesPanelStore.getState().filesPanelToggled(undefined, { focusIn: true });
        if (inMenu) viewerPrefsStore.getState().menuToggled(false);
      }}
    >
      Files
    </button>
  );
}
