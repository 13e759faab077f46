// The person's standing permissions in this window (see protocol standingPermission.ts for the
// rule): given from the approval panel by the person's own click, shown in the chrome with a
// one-click revoke, dropped when they expire, and all revoked by Stop. Held by the control
// window, which is where calls are gated; they end with the page.
import type { AiClientRef, StandingPermission, ToolName } from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';

export interface ShownStandingPermission extends StandingPermission {
  /** Who it was given to, for the chip ("Claude Code via token laptop"). */
  client: AiClientRef;
}

export interface StandingState {
  permissions: readonly ShownStandingPermission[];
  /** The person allowed `tool` for `client` for `minutes` (null: until the page closes). */
  granted: (tool: ToolName, client: AiClientRef, minutes: number | null, now: number) => void;
  revoked: (id: string) => void;
  allRevoked: () => void;
  /** Drop those that expired by `now`; returns them (for a toast). */
  expired: (now: number) => ShownStandingPermission[];
}

export function createStandingStore(): StoreApi<StandingState> {
  let counter = 0;
  return createStore<StandingState>()((set, get) => ({
    permissions: [],
    granted: (tool, client, minutes, now) => {
      counter += 1;
      const permission: ShownStandingPermission = {
        id: `standing_${counter}`,
        tool,
        clientKey: client.key,
        client,
        expiresAt: minutes === null ? null : now + minutes * 60_000,
      };
      // A new answer for the same tool and client replaces the old one.
      set((s) => ({
        permissions: [
          ...s.permissions.filter((p) => !(p.tool === tool && p.clientKey === client.key)),
          permission,
        ],
      }));
    },
    revoked: (id) => set((s) => ({ permissions: s.permissions.filter((p) => p.id !== id) })),
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
