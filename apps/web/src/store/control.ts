// State of the control channel as the chrome shows it: whether the bridge link is up, this
// window's role (control executes tool calls; mirror only displays), the person's mode and the
// custom policy that goes with it, and the latest remote clipboard text. Changes on messages
// from the bridge only, never per frame.
import type { BridgeToViewer, EventType, Mode, Permissions } from '@overlay-companion/protocol';

/** One connected AI client as the bridge reports it (ai_clients). */
export type ConnectedAiClient = Extract<BridgeToViewer, { type: 'ai_clients' }>['clients'][number];
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
  /**
   * The bridge says this window is its own headless viewer (nobody watches it). Decided by the
   * bridge from the sign-in session in hello, never by the page or its URL.
   */
  headless: boolean;
  /** The person's permission toggles; null until hello (handlers then deny what needs one). */
  permissions: Permissions | null;
  /**
   * Event types some MCP subscription collects (event_interest); null until the bridge says,
   * in which case every type is streamed (an older bridge never says).
   */
  eventInterest: readonly EventType[] | null;
  /** The AI clients acting for this person now (their MCP sessions), most recent first. */
  aiClients: readonly ConnectedAiClient[];
  /** In a mirror: what the person's control window is asking them (approvals_waiting). */
  approvalsElsewhere: readonly WaitingElsewhere[];
}

/**
 * One approval waiting in another window of the person. `frontAt`: when it came to the front of
 * this window's list (Approve is armed from then, as in the control window's panel).
 */
export type WaitingElsewhere = Extract<
  BridgeToViewer,
  { type: 'approvals_waiting' }
>['requests'][number] & { receivedAt: number; frontAt: number };

export interface ControlEvents {
  linkChanged: (link: LinkPhase, detail?: string | null) => void;
  helloReceived: (hello: {
    viewerId: string;
    role: ViewerRole;
    mode: Mode;
    headless: boolean;
    permissions: Permissions;
  }) => void;
  modeChanged: (mode: Mode, metadata: Record<string, unknown> | undefined) => void;
  permissionsChanged: (permissions: Permissions) => void;
  eventInterestChanged: (events: readonly EventType[]) => void;
  aiClientsChanged: (clients: readonly ConnectedAiClient[]) => void;
  approvalsElsewhereChanged: (requests: readonly WaitingElsewhere[]) => void;
}

export type ControlState = ControlData & ControlEvents;

export function createControlStore(): StoreApi<ControlState> {
  return createStore<ControlState>()((set) => ({
    link: 'idle',
    linkDetail: null,
    role: null,
    viewerId: null,
    mode: null,
    metadata: undefined,
    headless: false,
    permissions: null,
    eventInterest: null,
    aiClients: [],
    approvalsElsewhere: [],
    linkChanged: (link, detail = null) => set({ link, linkDetail: detail }),
    helloReceived: ({ viewerId, role, mode, headless, permissions }) =>
      // hello carries no custom policy (a mode_changed follows when there is one); a new link
      // starts without event interest until this bridge says what it wants.
      set({
        viewerId,
        role,
        mode,
        headless,
        permissions,
        metadata: undefined,
        eventInterest: null,
        approvalsElsewhere: [],
      }),
    modeChanged: (mode, metadata) => set({ mode, metadata }),
    permissionsChanged: (permissions) => set({ permissions }),
    eventInterestChanged: (events) => set({ eventInterest: [...events] }),
    aiClientsChanged: (aiClients) => set({ aiClients }),
    approvalsElsewhereChanged: (approvalsElsewhere) => set({ approvalsElsewhere }),
  }));
}

export const controlStore = createControlStore();
