// AI actions that were approved (by the person, or by the mode) but waited while the person had
// taken the desktop over, and now wait for the person to say Run or Discard. Written only by
// takeover/heldActions.ts; the "approved action waiting" panel renders from it.
import type { ToolName } from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ConfirmDetails } from './pendingConfirmations.js';

export interface HeldAction {
  id: string;
  tool: ToolName;
  /** What it would do, in the approval panel's terms (confirm/describe.ts words it). */
  details: ConfirmDetails;
  /** The AI client that asked for it, when the bridge said. */
  clientName?: string | undefined;
  /** Epoch ms when it was held (the Run button arms from when it is shown). */
  heldAt: number;
  /** Epoch ms after which it is discarded on its own (the call must answer before then). */
  deadlineAt: number;
}

export interface HeldActionState {
  held: readonly HeldAction[];
  actionHeld: (action: HeldAction) => void;
  heldActionSettled: (id: string) => void;
}

export function createHeldActionStore(): StoreApi<HeldActionState> {
  return createStore<HeldActionState>()((set) => ({
    held: [],
    actionHeld: (action) => set((s) => ({ held: [...s.held, action] })),
    heldActionSettled: (id) => set((s) => ({ held: s.held.filter((a) => a.id !== id) })),
  }));
}

export const heldActionStore = createHeldActionStore();
