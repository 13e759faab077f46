// The viewer's menu (Guacamole's Ctrl+Alt+Shift menu, noVNC's drawer): the clipboard both ways,
// scaling and fullscreen, keys the browser cannot type, view-only, and disconnect/reconnect.
// A panel over the desktop area — opening it never moves or rescales the display — and a
// sibling of the display, never inside it. Opening it takes the keyboard back from the
// desktop (focus moves here); Escape or the hotkey again gives it back. Escape closes it from
// anywhere on the page but the desktop and the approval panel (confirm/answerKeyboard.ts), so
// it still closes after the keyboard has left the menu.
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { getActiveClient } from '../display/activeClient.js';
import { DISPLAY_AREA_ATTRIBUTE } from '../display/guacBrowser.js';
import { APPROVAL_KEYS_HELP, HOTKEY_HELP, MENU_BUTTON_ATTRIBUTE } from '../display/hotkeys.js';
import { personInputBlocked, usePersonInputBlocked } from '../display/personInput.js';
import { useConnection, useDisplay } from '../store/index.js';
import { confirmationStore } from '../store/pendingConfirmations.js';
import { CLIENT_MENU_ATTRIBUTE, escapeAction, keyboardPlace } from '../confirm/answerKeyboard.js';
import { desktopStateStore, viewGrantOnly } from '../store/desktopState.js';
import { viewerPrefsStore, type ScalingMode } from '../store/viewerPrefs.js';
import { FUNCTION_KEYS, SPECIAL_KEYS, pressCombo, type SpecialKey } from './specialKeys.js';
import { TouchKeyboard } from './TouchKeyboard.js';
import { TakeOverButton } from '../takeover/TakeOverButton.js';
import { ActionLogButton } from '../activity/ActionLog.js';
import { FilesButton } from '../files/FilesPanel.js';
import { statsStore } from '../display/connectionStats.js';
import { OverlayList } from './OverlayList.js';
import { MenuAiClients } from './MenuAiClients.js';
import './menu.css';

export interface MenuClipboard {
  latest: () => string;
  subscribe: (listener: (text: string) => void) => () => void;
  send: (text: string) => boolean;
}

export interface ClientMenuProps {
  clipboard: MenuClipboard;
  onDisconnect: () => void;
  onReconnect: () => void;
}

const SCALING_LABELS: Record<ScalingMode, { label: string; hint: string }> = {
  fit: { label: 'Fit to window', hint: 'The whole desktop, scaled to this window.' },
  actual: { label: '1:1, scroll', hint: 'Desktop pixels as they are; scroll to see the rest.' },
};

/** Give the keyboard back to the desktop. */
export function focusDesktop(): void {
  document
    .querySelector<HTMLElement>(`[${DISPLAY_AREA_ATTRIBUTE}]`)
    ?.focus({ preventScroll: true });
}

// The bar's Menu button when the menu was opened from it (by Enter, Space or a click), else null.
let openedFromButton: HTMLElement | null = null;

/**
 * Close the menu and give the keyboard back: to the Menu button when the menu was opened from it,
 * else (opened by the chord from the desktop) to the desktop.
 */
function closeMenu(): void {
  viewerPrefsStore.getState().menuToggled(false);
  const from = openedFromButton;
  openedFromButton = null;
  if (from?.isConnected === true) from.focus({ preventScroll: true });
  else focusDesktop();
}

function sendSpecial(key: SpecialKey): boolean {
  const client = getActiveClient();
  if (client === null || personInputBlocked()) return false;
  pressCombo((pressed, keysym) => client.sendKeyEvent(pressed, keysym), key);
  return true;
}

function ClipboardSection({ clipboard }: { clipboard: MenuClipboard }) {
  const [text, setText] = useState(clipboard.latest);
  const [note, setNote] = useState('');
  useEffect(() => clipboard.subscribe((remote) => setText(remote)), [clipboard]);
  const canReadBrowser = typeof navigator.clipboard?.readText === 'function';
  const blocked = usePersonInputBlocked();
  return (
    <section className="client-menu__section" aria-labelledby="menu-clipboard">
      <h3 id="menu-clipboard">Clipboard</h3>
      <label className="client-menu__field">
        <span>Text on the desktop&apos;s clipboard (edit, then send)</span>
        <textarea
          data-testid="menu-clipboard-text"
          rows={4}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
      </label>
      <div className="client-menu__row">
        <button
          type="button"
          disabled={blocked}
          title={blocked ? 'View only: nothing you send reaches the desktop.' : undefined}
          onClick={() =>
            setNote(clipboard.send(text) ? 'Sent to the desktop.' : 'The desktop is not connected.')
          }
        >
          Send to desktop
        </button>
        {canReadBrowser && (
          <button
            type="button"
            onClick={() => {
              navigator.clipboard.readText().then(
                (local) => setText(local),
                () =>
                  setNote('The browser did not allow reading its clipboard; paste here instead.'),
              );
            }}
          >
            Paste from this computer
          </button>
        )}
      </div>
      <p className="client-menu__note" role="status">
        {note}
      </p>
    </section>
  );
}

/**
 * The live numbers, in their own component: only it re-renders when they change (about once a
 * second while frames arrive), and only while the menu is open — the closed menu subscribes to
 * nothing that ticks.
 */
function ConnectionStatsLine() {
  const stats = useStore(statsStore);
  return (
    <p className="client-menu__note" data-testid="menu-connection-stats">
      {`${stats.fps ?? 0} frames/s`} ·{' '}
      {stats.latencyMs === null
        ? 'latency shows once you use the desktop'
        : `input → picture ${stats.latencyMs} ms`}
    </p>
  );
}

export function ClientMenu({ clipboard, onDisconnect, onReconnect }: ClientMenuProps) {
  const open = useStore(viewerPrefsStore, (s) => s.menuOpen);
  const scaling = useStore(viewerPrefsStore, (s) => s.scaling);
  const viewOnlyChosen = useStore(viewerPrefsStore, (s) => s.viewOnly);
  const viewGranted = useStore(desktopStateStore, viewGrantOnly);
  const viewOnly = usePersonInputBlocked();
  const phase = useConnection((s) => s.phase);
  const size = useDisplay((s) => `${s.desktopWidth}×${s.desktopHeight}`);
  const scale = useDisplay((s) => Math.round(s.scale * 100));
  const panelRef = useRef<HTMLElement>(null);
  const [fnKey, setFnKey] = useState(0);

  useEffect(() => {
    if (!open) return;
    const from = document.activeElement;
    openedFromButton =
      from instanceof HTMLElement && from.hasAttribute(MENU_BUTTON_ATTRIBUTE) ? from : null;
    panelRef.current?.querySelector<HTMLElement>('button, input, textarea, select')?.focus();
  }, [open]);

  useEffect(() => {
    if (!open) return undefined;
    const onKey = (event: KeyboardEvent) => {
      // defaultPrevented: the approval panel already took this Escape (the same rule).
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      const approvalWaiting = confirmationStore.getState().pending.length > 0;
      const place = keyboardPlace(event.target);
      if (escapeAction(place, { menuOpen: true, approvalWaiting }) !== 'closeMenu') return;
      event.preventDefault();
      closeMenu();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);

  if (!open) return null;
  const connected = phase === 'connected';
  return (
    <aside
      ref={panelRef}
      id="client-menu"
      className="client-menu"
      role="dialog"
      aria-modal="false"
      aria-labelledby="client-menu-title"
      data-testid="client-menu"
      {...{ [CLIENT_MENU_ATTRIBUTE]: '' }}
    >
      <div className="client-menu__head">
        <h2 id="client-menu-title">Menu</h2>
        <button type="button" onClick={closeMenu}>
          Close
        </button>
      </div>
      <p className="client-menu__hint">
        {HOTKEY_HELP.menu} opens and closes this menu, even while the desktop has the keyboard;{' '}
        {HOTKEY_HELP.stop} is Stop. Tab moves between controls; Escape gives the keyboard back to
        where it was (the desktop, or the Menu button). {APPROVAL_KEYS_HELP}
      </p>
      <section className="client-menu__section" aria-labelledby="menu-ai">
        <h3 id="menu-ai">The AI</h3>
        <div className="client-menu__row client-menu__row--wrap">
          <TakeOverButton />
          <ActionLogButton />
          <FilesButton inMenu />
        </div>
        <MenuAiClients />
      </section>
      <ClipboardSection clipboard={clipboard} />
      <OverlayList />
      <section className="client-menu__section" aria-labelledby="menu-display">
        <h3 id="menu-display">Display</h3>
        <fieldset className="client-menu__choices">
          <legend>Scaling</legend>
          {(Object.keys(SCALING_LABELS) as ScalingMode[]).map((mode) => (
            <label key={mode} title={SCALING_LABELS[mode].hint}>
              <input
                type="radio"
                name="scaling"
                value={mode}
                checked={scaling === mode}
                onChange={() => viewerPrefsStore.getState().scalingChosen(mode)}
              />
              {SCALING_LABELS[mode].label}
            </label>
          ))}
        </fieldset>
        <p className="client-menu__note">{SCALING_LABELS[scaling].hint}</p>
        <div className="client-menu__row">
          <button
            type="button"
            onClick={() => {
              if (document.fullscreenElement) void document.exitFullscreen();
              else void document.documentElement.requestFullscreen();
            }}
          >
            Fullscreen on/off
          </button>
        </div>
      </section>
      <section className="client-menu__section" aria-labelledby="menu-keys">
        <h3 id="menu-keys">Keys</h3>
        <div className="client-menu__row client-menu__row--wrap">
          {SPECIAL_KEYS.map((key) => (
            <button
              key={key.label}
              type="button"
              disabled={!connected || viewOnly}
              onClick={() => sendSpecial(key)}
            >
              {key.label}
            </button>
          ))}
        </div>
        <div className="client-menu__row">
          <label className="client-menu__inline">
            <span>Function key</span>
            <select value={fnKey} onChange={(event) => setFnKey(Number(event.target.value))}>
              {FUNCTION_KEYS.map((key, i) => (
                <option key={key.label} value={i}>
                  {key.label}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            disabled={!connected || viewOnly}
            onClick={() => {
              const key = FUNCTION_KEYS[fnKey];
              if (key) sendSpecial(key);
            }}
          >
            Send
          </button>
        </div>
      </section>
      <section className="client-menu__section" aria-labelledby="menu-input">
        <h3 id="menu-input">Input</h3>
        <TouchKeyboard />
        <label className="client-menu__inline">
          <input
            type="checkbox"
            data-testid="menu-view-only"
            checked={viewOnlyChosen || viewGranted}
            disabled={viewGranted}
            onChange={(event) => viewerPrefsStore.getState().viewOnlyToggled(event.target.checked)}
          />
          {viewGranted
            ? 'View only: you were given view access to this desktop, so your mouse and keyboard never reach it'
            : 'View only (your mouse and keyboard do not reach the desktop)'}
        </label>
      </section>
      <section className="client-menu__section" aria-labelledby="menu-connection">
        <h3 id="menu-connection">Connection</h3>
        <p className="client-menu__note" data-testid="menu-connection-info">
          {connected
            ? `Desktop ${size}, shown at ${scale} %, through this bridge's Guacamole tunnel.`
            : 'Not connected.'}
        </p>
        {connected && <ConnectionStatsLine />}
        <div className="client-menu__row">
          {connected ? (
            <button type="button" onClick={onDisconnect}>
              Disconnect
            </button>
          ) : (
            <button type="button" onClick={onReconnect}>
              Reconnect
            </button>
          )}
        </div>
      </section>
    </aside>
  );
}
