// The chrome bar above the desktop: connection state with the reason for any error, the
// desktop's size and scale, where the keyboard goes, and the person's buttons. It lives outside
// the remote canvas so it stays usable whatever the remote desktop does. Which desktop this is and
// who is in charge of its AI follow the connection state; the signed-in person's account menu
// sits at the right end. In a monitor window without room for it, the bar floats over the
// picture and hides while unused (viewport/floatingChrome.ts).
import { useRef, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useStore } from 'zustand';
import { useConnectionData, useDisplay } from '../store/index.js';
import { describeConnection } from './describeConnection.js';
import { useNow } from './useNow.js';
import { HOTKEY_HELP, MENU_BUTTON_ATTRIBUTE } from '../display/hotkeys.js';
import { useFloatingChrome } from '../viewport/floatingChrome.js';
import { viewerPrefsStore } from '../store/viewerPrefs.js';
import { BarWords } from './BarWords.js';

export interface StatusBarProps {
  onReconnectNow: () => void;
  /** Open or close the viewer menu (also Ctrl+Alt+Shift). */
  onOpenMenu: () => void;
  /** The desktop's name, who is in charge of its AI and who watches, after the connection state. */
  desktop?: ReactNode;
  /** The person's control-plane controls (mode, Stop), shown at the right end. */
  controls?: ReactNode;
  /** The signed-in person's name and menu, after the controls. */
  account?: ReactNode;
}

export function StatusBar({
  onReconnectNow,
  onOpenMenu,
  desktop,
  controls,
  account,
}: StatusBarProps) {
  const header = useRef<HTMLElement>(null);
  const menuOpen = useStore(viewerPrefsStore, (s) => s.menuOpen);
  const chrome = useFloatingChrome(header);
  const connection = useConnectionData();
  const display = useDisplay(
    useShallow(({ desktopWidth, desktopHeight, scale, keyboardFocused }) => ({
      desktopWidth,
      desktopHeight,
      scale,
      keyboardFocused,
    })),
  );
  const now = useNow(connection.phase === 'reconnecting');
  const status = describeConnection(connection, now);
  const connected = connection.phase === 'connected';
  const canReconnect = connection.phase === 'reconnecting' || connection.phase === 'failed';

  return (
    <header
      ref={header}
      className={
        chrome === 'docked' ? 'status-bar' : `status-bar status-bar--floating status-bar--${chrome}`
      }
      data-chrome={chrome}
    >
      <span className="status-bar__brand">Overlay Companion</span>
      <button
        type="button"
        className="status-bar__button status-bar__menu"
        onClick={onOpenMenu}
        aria-expanded={menuOpen}
        aria-controls={menuOpen ? 'client-menu' : undefined}
        aria-keyshortcuts="Control+Alt+Shift"
        {...{ [MENU_BUTTON_ATTRIBUTE]: '' }}
        title={`Clipboard, scaling, fullscreen, special keys, view only (${HOTKEY_HELP.menu})`}
      >
        Menu
      </button>
      <span
        className={`status-bar__status status-bar__status--${status.tone}`}
        role="status"
        aria-live="polite"
      >
        <span className="status-bar__dot" aria-hidden="true" />
        {/* A phone's bar shows a good connection as its green dot alone. */}
        <BarWords
          long={status.label}
          narrow={status.tone === 'ok' ? 'phone' : 'never'}
          testId="connection-label"
        />
        {status.detail && (
          <span
            className="status-bar__detail"
            data-testid="connection-detail"
            title={status.code === undefined ? status.detail : `${status.detail} (${status.code})`}
          >
            {status.detail}
          </span>
        )}
      </span>
      {desktop}
      <span className="status-bar__spacer" />
      {connected && display.desktopWidth > 0 && (
        <span
          className="status-bar__info"
          data-testid="desktop-size"
          title="Remote desktop size and the scale it is shown at"
        >
          {display.desktopWidth}×{display.desktopHeight} · {Math.round(display.scale * 100)} %
        </span>
      )}
      {connected && (
        <span className="status-bar__info" data-testid="keyboard-target">
          {display.keyboardFocused ? 'Keyboard → desktop' : 'Click the desktop to type'}
        </span>
      )}
      {canReconnect && (
        <button type="button" className="status-bar__button" onClick={onReconnectNow}>
          Reconnect now
        </button>
      )}
      {controls}
      {account}
    </header>
  );
}
