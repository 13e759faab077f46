// State of the control channel as the chrome shows it: whether the bridge link is up, this
// window's role (control executes tool calls; mirror only displays), the person's mode and the
// custom policy that goes with it, and the latest remote clipboard text. Changes on messages
// from the bridge only, never per frame.
import type { EventType, Mode } from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';

export type LinkPhase = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'incompatible';
export type ViewerRole = 'control' | 'mirror';

export interface ControlData {
  link: LinkPhase;
  /** Why the link is down, in words for the person. */
  linkDetail: string | null;
  role: ViewerRole | null;
  viewerId: string | null;
  /** Unknown until the bridge says hello; handlers treat null as passive (fail closed). */
  mode: Mode | null;
  metadata: Record<string, unknown> | undefined;
  /** This window was opened as the headless viewer (?headless=1). */
  headless: boolean;
  /**
   * Event types some MCP subscription collects (event_interest); null until the bridge says,
   * in which case every type is streamed (an older bridge never says).
   */
  eventInterest: readonly EventType[] | null;
}

export interface ControlEvents {
  linkChanged: (link: LinkPhase, detail?: string | null) => void;
  helloReceived: (hello: { viewerId: string; role: ViewerRole; mode: Mode }) => void;
  modeChanged: (mode: Mode, metadata: Record<string, unknown> | undefined) => void;
  eventInterestChanged: (events: readonly EventType[]) => void;
}

export type ControlState = ControlData & ControlEvents;

export function createControlStore(headless = false): StoreApi<ControlState> {
  return createStore<ControlState>()((set) => ({
    link: 'idle',
    linkDetail: null,
    role: null,
    viewerId: null,
    mode: null,
    metadata: undefined,
    headless,
    eventInterest: null,
    linkChanged: (link, detail = null) => set({ link, linkDetail: detail }),
    helloReceived: ({ viewerId, role, mode }) =>
      // hello carries no custom policy (a mode_changed follows when there is one); a new link
      // starts without event interest until this bridge says what it wants.
      set({ viewerId, role, mode, metadata: undefined, eventInterest: null }),
    modeChanged: (mode, metadata) => set({ mode, metadata }),
    eventInterestChanged: (events) => set({ eventInterest: [...events] }),
  }));
}

function headlessFromUrl(): boolean {
  if (typeof window === 'undefined') return false;
  return new URLSearchParams(window.location.search).get('headless') === '1';
}

export const controlStore = createControlStore(headlessFromUrl());
