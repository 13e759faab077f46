// In a full viewer: the approvals waiting on the person's *other* desktops (this desktop's own
// are its approval panel's), so a question from desktop 2 reaches them while they look at
// desktop 1. The same queue and answers as the fleet page (FleetApprovals over /ws/fleet; the
// bridge checks the person is in charge of that desktop). Floats over the desktop area as a
// sibling of the display, never inside it, so nothing on the desktop can answer it.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { controlStore } from '../store/control.js';
import { desktopStateStore } from '../store/desktopState.js';
import { FleetApprovals } from './FleetApprovals.js';
import { returnKeyboard } from '../confirm/answerKeyboard.js';
import { approvalQueue } from './fleetOrder.js';
import { openFleetFeed, type FleetFeed } from './fleetSocket.js';
import { createFleetStore } from './fleetStore.js';

export function OtherDesktopsApprovals() {
  const [store] = useState(createFleetStore);
  const feed = useRef<FleetFeed | null>(null);
  const headless = useStore(controlStore, (s) => s.headless);
  const here = useStore(desktopStateStore, (s) => s.people?.desktop.id);
  const desktops = useStore(store, (s) => s.desktops);
  useEffect(() => {
    // The headless viewer has nobody to ask (the bridge refuses it the feed anyway).
    if (headless) return;
    const opened = openFleetFeed(store);
    feed.current = opened;
    return () => {
      opened.close();
      feed.current = null;
    };
  }, [store, headless]);
  const queue = useMemo(
    () => approvalQueue(here === undefined ? [] : desktops.filter((d) => d.id !== here)),
    [desktops, here],
  );
  if (headless) return null;
  return (
    <FleetApprovals
      className="fleet-approvals--floating"
      heading="h3"
      chordTarget
      queue={queue}
      onAnswer={(desktopId, requestId, approved) => {
        feed.current?.send({
          type: 'fleet_answer',
          desktop_id: desktopId,
          request_id: requestId,
          approved,
        });
        // As after this desktop's own panel: the keyboard goes back where it came from (or to
        // the desktop) rather than to nothing when the row goes.
        returnKeyboard(document);
      }}
    />
  );
}
