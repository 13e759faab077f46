// The page's end of /ws/fleet: a fresh single-use `fleet` ticket per attempt, every frame parsed
// with the protocol's parseFleetMessage (a bad frame is logged and dropped), the store told what
// happened, reconnecting with the viewer's jittered backoff. `send` carries Stop, Stop all and
// answers; the bridge decides whether each is allowed.
import {
  FLEET_SOCKET_PATH,
  parseFleetMessage,
  type FleetToBridge,
} from '@overlay-companion/protocol';
import { backoffDelay } from '../display/backoff.js';
import { fetchTicket } from '../net/tickets.js';
import { wsUrl } from '../net/wsUrl.js';
import type { FleetStore } from './fleetStore.js';

export interface FleetFeed {
  send(message: FleetToBridge): boolean;
  close(): void;
}

export function openFleetFeed(store: FleetStore): FleetFeed {
  let socket: WebSocket | undefined;
  let closed = false;
  let failures = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const again = (why: string): void => {
    if (closed) return;
    store.getState().feedClosed(why);
    retry = setTimeout(connect, backoffDelay(failures));
    failures += 1;
  };

  function connect(): void {
    fetchTicket('fleet', undefined, { desktop: undefined }).then(
      (ticket) => {
        if (closed) return;
        const ws = new WebSocket(
          `${wsUrl(FLEET_SOCKET_PATH)}?ticket=${encodeURIComponent(ticket)}`,
        );
        socket = ws;
        ws.onmessage = (event: MessageEvent) => {
          if (typeof event.data !== 'string') return;
          const parsed = parseFleetMessage(event.data);
          if (!parsed.ok) {
            console.warn('fleet: dropped a malformed message', parsed.error);
            return;
          }
          const message = parsed.message;
          switch (message.type) {
            case 'fleet_state':
              failures = 0;
              store.getState().fleetStateReceived(message.desktops);
              return;
            case 'fleet_error':
              store.getState().requestRefused(message.message);
              return;
            case 'fleet_stopped':
              return;
            default: {
              const never: never = message;
              void never;
            }
          }
        };
        ws.onclose = (event: CloseEvent) => {
          if (socket === ws) socket = undefined;
          again(
            event.reason === ''
              ? 'The link to the bridge dropped; reconnecting…'
              : `${event.reason} Reconnecting…`,
          );
        };
      },
      (thrown: unknown) => again(thrown instanceof Error ? thrown.message : String(thrown)),
    );
  }

  connect();
  return {
    send: (message) => {
      if (socket?.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(message));
      return true;
    },
    close: () => {
      closed = true;
      clearTimeout(retry);
      socket?.close(1000, 'page closed');
    },
  };
}
