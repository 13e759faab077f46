// The desktop's standing permissions as the bridge keeps them (standing_permissions, after hello
// and on every change): shown in the chrome of every window with a one-click revoke that asks
// the bridge, and used by the control window only to check the bridge's own word (a call the
// bridge allowed by standing permission N runs unasked only while this list has N for that tool
// and client). Times arrive relative to receipt and are kept as this window's clock; an ended
// one is dropped here when due (the bridge ends it too and says so).
import type {
  AiClientRef,
  StandingPermission,
  StandingPermissionsMessage,
} from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';

export interface ShownStandingPermission extends StandingPermission {
  /** N in "standing permission N" (the audit log's name for it). */
  number: number;
  /** Who it was given to, for the chip ("Claude Code via token laptop"). */
  client: AiClientRef;
  /** Who gave it. */
  grantedBy: string;
}

export interface StandingState {
  permissions: readonly ShownStandingPermission[];
  /** The bridge's list, received at `now`. */
  received: (message: StandingPermissionsMessage, now: number) => void;
  /** Stop: none lasts (the bridge ends them too, and its list follows). */
  allRevoked: () => void;
  /** Drop those that ran out by `now`; returns them (for a toast). */
  expired: (now: number) => ShownStandingPermission[];
}

export function createStandingStore(): StoreApi<StandingState> {
  return createStore<StandingState>()((set, get) => ({
    permissions: [],
    received: (message, now) =>
      set({
        permissions: message.permissions.map((p) => ({
          id: p.id,
          number: p.number,
          tool: p.tool,
          clientKey: p.client.key,
          client: p.client,
          grantedBy: p.granted_by,
          expiresAt: p.expires_in_ms === null ? null : now + p.expires_in_ms,
        })),
      }),
    allRevoked: () => set({ permissions: [] }),
    expired: (now) => {
      const gone = get().permissions.filter((p) => p.expiresAt !== null && p.expiresAt <= now);
      if (gone.length > 0)
        set((s) => ({ permissions: s.permissions.filter((p) => !gone.includes(p)) }));
      return gone;
    },
  }));
}

export const standingStore = createStandingStore();
