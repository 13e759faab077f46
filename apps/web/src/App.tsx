// The viewer's layout: the chrome bar on top, the remote desktop filling the rest. The session
// is created and started outside React (main.tsx), so re-renders never touch the connection.
import type Guacamole from 'guacamole-common-js';
import type { GuacSession } from './display/guacSession.js';
import { RemoteDisplay } from './display/RemoteDisplay.js';
import { StatusBar } from './ui/StatusBar.js';

export interface AppProps {
  session: GuacSession<Guacamole.Client>;
  fitDesktopToWindow: () => void;
}

export function App({ session, fitDesktopToWindow }: AppProps) {
  return (
    <div className="app">
      <StatusBar onReconnectNow={() => session.reconnectNow()} onFitDesktop={fitDesktopToWindow} />
      <main className="app__desktop">
        <RemoteDisplay />
      </main>
    </div>
  );
}
