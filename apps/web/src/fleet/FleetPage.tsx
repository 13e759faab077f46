// /fleet: every desktop the person may see at a glance (a live tile each, sorted by "needs me"),
// the approvals of all of them as one queue oldest first, a Stop per desktop and Stop all. The
// state comes from /ws/fleet (fleetSocket.ts); every request goes back over it and the bridge
// decides (Stop for anyone who may see a desktop, answers only from the person in charge).
import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { useNow } from '../ui/useNow.js';
import { FleetApprovals } from './FleetApprovals.js';
import { FleetTile } from './FleetTile.js';
import { approvalQueue, byNeedsMe } from './fleetOrder.js';
import { openFleetFeed, type FleetFeed } from './fleetSocket.js';
import { createFleetStore } from './fleetStore.js';
import { NewDesktop } from './NewDesktop.js';
import './fleet.css';

export function FleetPage() {
  const [store] = useState(createFleetStore);
  const feed = useRef<FleetFeed | null>(null);
  const desktops = useStore(store, (s) => s.desktops);
  const live = useStore(store, (s) => s.live);
  const problem = useStore(store, (s) => s.problem);
  const [notice, setNotice] = useState<string | null>(null);
  const now = useNow(true, 1000);
  // What a press did is said for a moment, not left standing beside later state.
  useEffect(() => {
    if (notice === null) return;
    const timer = setTimeout(() => setNotice(null), 5000);
    return () => clearTimeout(timer);
  }, [notice]);

  useEffect(() => {
    feed.current = openFleetFeed(store);
    return () => {
      feed.current?.close();
      feed.current = null;
    };
  }, [store]);

  // Re-sorted as the facts change (an AI going idle counts after a minute) — but not while the
  // keyboard is on a tile: moving the focused tile would lose the focus and the person's place.
  const [frozenOrder, setFrozenOrder] = useState<string[] | null>(null);
  const liveOrder = useMemo(() => byNeedsMe(desktops, now), [desktops, now]);
  const sorted = useMemo(() => {
    if (frozenOrder === null) return liveOrder;
    const place = (id: string): number => {
      const at = frozenOrder.indexOf(id);
      return at < 0 ? frozenOrder.length : at;
    };
    return [...desktops].sort((a, b) => place(a.id) - place(b.id));
  }, [liveOrder, desktops, frozenOrder]);
  const queue = useMemo(() => approvalQueue(desktops), [desktops]);

  const send = (message: Parameters<FleetFeed['send']>[0], done: string): void => {
    store.getState().problemDismissed();
    if (feed.current?.send(message) === true) setNotice(done);
    else setNotice('Not connected to the bridge; nothing was sent. Wait for it to reconnect.');
  };

  return (
    <div className="fleet" data-testid="fleet-page">
      <div className="fleet__bar">
        <p className="fleet__summary" role="status">
          {!live
            ? 'Connecting to the bridge…'
            : desktops.length === 0
              ? 'You may see no desktop yet.'
              : `${desktops.length} desktop${desktops.length === 1 ? '' : 's'}, ${queue.length} approval${queue.length === 1 ? '' : 's'} waiting.`}
        </p>
        <button
          type="button"
          className="button button--danger"
          data-testid="fleet-stop-all"
          disabled={desktops.length === 0}
          onClick={() =>
            send(
              { type: 'fleet_stop_all' },
              'Stopped the AI on every desktop you may stop: everything pending was denied and each is passive now.',
            )
          }
        >
          Stop all
        </button>
      </div>
      {problem !== null && (
        <p className="fleet__problem" role="alert">
          {problem}
        </p>
      )}
      {notice !== null && problem === null && (
        <p className="fleet__notice" role="status">
          {notice}
        </p>
      )}
      <FleetApprovals
        queue={queue}
        onAnswer={(desktopId, requestId, approved) =>
          send(
            { type: 'fleet_answer', desktop_id: desktopId, request_id: requestId, approved },
            approved ? 'Approved.' : 'Denied.',
          )
        }
      />
      <h2 className="fleet__heading">Desktops</h2>
      <ul
        className="fleet__tiles"
        aria-label="Desktops, those that need you first"
        onFocus={() => setFrozenOrder((kept) => kept ?? sorted.map((d) => d.id))}
        onBlur={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget)) setFrozenOrder(null);
        }}
      >
        {sorted.map((desktop) => (
          <FleetTile
            key={desktop.id}
            desktop={desktop}
            now={now}
            onStop={(desktopId) =>
              send(
                { type: 'fleet_stop', desktop_id: desktopId },
                `Stopped the AI on ${desktop.name}: everything pending was denied and it is passive now.`,
              )
            }
          />
        ))}
      </ul>
      <NewDesktop />
    </div>
  );
}
