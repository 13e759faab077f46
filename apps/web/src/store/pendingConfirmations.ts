// Confirmations waiting for the person, in the order they were asked. Written only by
// confirm/confirmations.ts; the confirmation panel and the overlay layer's preview marks render
// from it. Answers never go through this store: they go to the Confirmations object, which the
// panel's buttons call.
import type {
  AiAction,
  AiClientRef,
  Mode,
  ToolName,
  ToolPreview,
} from '@overlay-companion/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';

/**
 * What will happen if the person approves, in enough detail to show exactly that: a tool's
 * preview (its definition's, with points in desktop pixels: confirm/previewDetails.ts), a mode
 * change, or any other tool by its name and arguments.
 */
export type ConfirmDetails =
  | AiAction
  | Extract<ToolPreview, { kind: 'text' | 'none' }>
  | {
      kind: 'mode';
      from: Mode;
      to: Mode;
      metadata?: Record<string, unknown> | undefined;
      /** Who asked: the AI (set_mode), or the person choosing a higher mode in a window. */
      requestedBy?: 'ai' | 'person' | undefined;
    }
  /** Any other tool the bridge asked to confirm: its name and arguments as JSON. */
  | { kind: 'other'; tool: string; args: string };

export type ConfirmKind = ConfirmDetails['kind'];
export type DetailsOf<K extends ConfirmKind> = Extract<ConfirmDetails, { kind: K }>;

/**
 * One entry per kind of ConfirmDetails: how the panel words it, marks it, how the pointer draws
 * it. A mapped type over the kinds (never over tool names), so a new kind does not compile until
 * every table has it, and a new tool that previews as an existing kind needs none of them.
 */
export type ByKind<R> = { readonly [K in ConfirmKind]: (details: DetailsOf<K>) => R };

/** The entry of `table` for `details`' kind, applied to it. */
export function byKind<R>(table: ByKind<R>, details: ConfirmDetails): R {
  return (table[details.kind] as (d: ConfirmDetails) => R)(details);
}

export interface PendingConfirmation {
  id: string;
  details: ConfirmDetails;
  /** Epoch ms when it was asked (the panel ignores clicks in the first moments after). */
  askedAt: number;
  /** Epoch ms after which it is denied. */
  deadlineAt: number;
  /**
   * Epoch ms when it came to the front of the queue (null while another one is shown). The
   * panel arms Approve from this moment, so a double-click cannot approve the next request.
   */
  frontAt: number | null;
  /** Set for tool calls the person may answer with a standing permission for this client. */
  grantable?: Grantable | undefined;
  /** The AI's own words for why it wants this (the tool's `intent` argument), if it gave any. */
  intent?: string | undefined;
}

/** A tool call the person may answer with "allow this for a while" (the bridge keeps it). */
export interface Grantable {
  tool: ToolName;
  client: AiClientRef;
  /** The bridge's id for the call, which standing_grant names. */
  callId: string;
}

export interface ConfirmationState {
  pending: readonly PendingConfirmation[];
  asked: (confirmation: Omit<PendingConfirmation, 'frontAt'>) => void;
  settled: (id: string, now: number) => void;
  allSettled: () => void;
}

export function createConfirmationStore(): StoreApi<ConfirmationState> {
  return createStore<ConfirmationState>()((set) => ({
    pending: [],
    asked: (confirmation) =>
      set((s) => ({
        pending: [
          ...s.pending,
          { ...confirmation, frontAt: s.pending.length === 0 ? confirmation.askedAt : null },
        ],
      })),
    settled: (id, now) =>
      set((s) => {
        const rest = s.pending.filter((p) => p.id !== id);
        const [first, ...others] = rest;
        if (first === undefined || first.frontAt !== null) return { pending: rest };
        return { pending: [{ ...first, frontAt: now }, ...others] };
      }),
    allSettled: () => set({ pending: [] }),
  }));
}

export const confirmationStore = createConfirmationStore();
