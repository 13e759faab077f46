// The viewer's layout: the key-reading banner when an AI reads the person's key presses, the
// chrome bar on top (with the mode selector, Stop and the account menu), the remote
// desktop with its overlay layer filling the rest, and the confirmation panel beside it. The session
// is created and started outside React (main.tsx), so re-renders never touch the connection.
import type Guacamole from 'guacamole-common-js';
import type { GuacSession } from './display/guacSession.js';
import { RemoteDisplay } from './display/RemoteDisplay.js';
import { StatusBar } from './ui/StatusBar.js';
import { getControlPlane } from './control/browserControl.js';
import { ConfirmDialog } from './confirm/ConfirmDialog.js';
import { ControlControls } from './confirm/ControlControls.js';
import { OverlayLayer } from './overlay/OverlayLayer.js';
import { AccountMenu } from './ui/AccountMenu.js';
import { KeyReadingBanner } from './ui/KeyReadingBanner.js';

export interface AppProps {
  session: GuacSession<Guacamole.Client>;
  fitDesktopToWindow: () => void;
}

export function App({ session, fitDesktopToWindow }: AppProps) {
  // Created once per page (idempotent), outside React's lifecycle like the session.
  const plane = getControlPlane();
  return (
    <div className="app">
      {/* Above everything else: the person must see when an AI reads what they type. */}
      <KeyReadingBanner />
      <StatusBar
        onReconnectNow={() => session.reconnectNow()}
        onFitDesktop={fitDesktopToWindow}
        controls={<ControlControls onStop={plane.stop} onChooseMode={plane.chooseMode} />}
        account={<AccountMenu />}
      />
      <div className="app__body">
        <main className="app__desktop">
          <RemoteDisplay />
          {/* A sibling of the display, above it, click-through. */}
          <OverlayLayer />
        </main>
        {/* Beside the display, never inside it: the desktop cannot receive the approving click. */}
        <ConfirmDialog answer={plane.answer} />
      </div>
    </div>
  );
}
