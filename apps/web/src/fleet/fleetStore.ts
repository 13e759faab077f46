// The fleet as this page knows it (from /ws/fleet): every desktop the person may see, whether the
// feed is connected, and what the bridge last refused. Data only; actions are named after what
// happened. The socket that feeds it is fleetSocket.ts.
import type { FleetDesktop } from '@overlay-companion/protocol';
import { createStore } from 'zustand/vanilla';

export interface FleetData {
  desktops: FleetDesktop[];
  /** Whether a fleet_state arrived on the open socket. */
  live: boolean;
  /** Why the feed is not live, or what the bridge refused last. */
  problem: string | null;
}

export interface FleetState extends FleetData {
  fleetStateReceived(desktops: FleetDesktop[]): void;
  requestRefused(message: string): void;
  feedClosed(why: string): void;
  problemDismissed(): void;
}

export function createFleetStore() {
  return createStore<FleetState>()((set) => ({
    desktops: [],
    live: false,
    problem: null,
    fleetStateReceived: (desktops) => set({ desktops, live: true }),
    requestRefused: (message) => set({ problem: message }),
    feedClosed: (why) => set({ live: false, problem: why }),
    problemDismissed: () => set({ problem: null }),
  }));
}

export type FleetStore = ReturnType<typeof createFleetStore>;
