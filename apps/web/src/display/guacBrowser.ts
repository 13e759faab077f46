// Wires the framework-free GuacSession to the browser: the real WebSocketTunnel and Client of
// guacamole-common-js, the app's stores and the active-client module. (The viewer never resizes
// the remote desktop: the bridge decides its size from the person's layout or the operator.)
// Every attempt opens /tunnel with a fresh single-use ticket from the bridge (net/tickets.ts).
import Guacamole from 'guacamole-common-js';
import { GuacSession, type ConnectSize } from './guacSession.js';
import { getActiveClient, setActiveClient } from './activeClient.js';
import { attachInputReceipts, endInputReceipts } from './inputReceipts.js';
import { attachPointerInput } from './pointerInput.js';
import { followWindowAttention } from './windowAttention.js';
import { controlStore } from '../store/control.js';
import { connectionEvents } from '../store/connection.js';
import { connectionStore } from '../store/index.js';
import { wsUrl } from '../net/wsUrl.js';
import { fetchTicket } from '../net/tickets.js';
import { ATTENTION_TUNNEL_OPCODE, TUNNEL_SOCKET_PATH } from '@overlay-companion/protocol';

/** Marks the element the remote desktop is drawn in; its size is what "fit" means. */
export const DISPLAY_AREA_ATTRIBUTE = 'data-remote-display';

/** CSS size of the area the desktop is drawn in (the window until the area exists). */
export function displayAreaSize(): { width: number; height: number } {
  const area = document.querySelector<HTMLElement>(`[${DISPLAY_AREA_ATTRIBUTE}]`);
  if (area && area.clientWidth > 0 && area.clientHeight > 0) {
    return { width: area.clientWidth, height: area.clientHeight };
  }
  return { width: window.innerWidth, height: window.innerHeight };
}

function connectSize(): ConnectSize {
  return { ...displayAreaSize(), dpi: Math.round(96 * (window.devicePixelRatio || 1)) };
}

let session: GuacSession<Guacamole.Client> | undefined;
/** The tunnel of the session's current attempt (for what the page says on it besides input). */
let currentTunnel: Guacamole.Tunnel | undefined;

/** The page's one remote-display session (created on first use, started by main.tsx). */
export function browserSession(): GuacSession<Guacamole.Client> {
  if (session !== undefined) return session;
  session = new GuacSession<Guacamole.Client>({
    open: () => {
      // The tunnel opens `${url}?${connect data}`; the session puts the ticket in the data.
      const tunnel = new Guacamole.WebSocketTunnel(wsUrl(TUNNEL_SOCKET_PATH));
      const client = new Guacamole.Client(tunnel);
      attachInputReceipts(client, tunnel);
      attachPointerInput(client, tunnel);
      currentTunnel = tunnel;
      return { tunnel, client };
    },
    events: connectionEvents(connectionStore),
    size: connectSize,
    ticket: () => fetchTicket('tunnel'),
    onClientChanged: (client) => {
      const before = getActiveClient();
      if (before !== null && before !== client) endInputReceipts(before);
      setActiveClient(client);
    },
  });
  followWindowAttention({
    connection: connectionStore,
    control: controlStore,
    hidden: () => document.hidden,
    onVisibilityChange: (listener) => {
      document.addEventListener('visibilitychange', listener);
      return () => document.removeEventListener('visibilitychange', listener);
    },
    send: (level) => currentTunnel?.sendMessage(ATTENTION_TUNNEL_OPCODE, level),
  });
  return session;
}
