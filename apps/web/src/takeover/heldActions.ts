// Nothing the AI was allowed to do before or during a take-over runs after the hand back unless
// the person says so then: such an action is held here and offered as "approved action waiting:
// Run / Discard" (HeldActionsPanel.tsx). `hold()` resolves when the person presses Run, and
// rejects — the call fails, nothing is done — on Discard, when the call must give up, or when it
// is cancelled (Stop, the AI, the link). Framework-free so the rules are unit-tested.
import { ProtocolError, type ToolName } from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { ConfirmDetails } from '../store/pendingConfirmations.js';
import type { HeldActionState } from '../store/heldActions.js';
import { cancelledError } from '../control/sleep.js';

export interface HoldRequest {
  tool: ToolName;
  details: ConfirmDetails;
  clientName?: string | undefined;
  signal: AbortSignal;
  /** Epoch ms at which the call gives up (so its answer reaches the AI before its deadline). */
  giveUpAt: number;
}

interface Waiting {
  tool: ToolName;
  resolve: () => void;
  reject: (error: ProtocolError) => void;
}

export function discardedError(tool: ToolName): ProtocolError {
  return new ProtocolError(
    'permission_denied',
    `The person discarded this ${tool}: it was approved but had to wait while they had taken over the desktop, and when they handed it back they chose Discard. Nothing was done; take a screenshot before deciding what to do next.`,
  );
}

export function notConfirmedError(tool: ToolName): ProtocolError {
  return new ProtocolError(
    'permission_denied',
    `This ${tool} waited while the person had taken over the desktop; after they handed it back they did not choose Run before the call's deadline, so nothing was done. Take a screenshot before trying again.`,
  );
}

export class HeldActions {
  readonly #store: StoreApi<HeldActionState>;
  readonly #now: () => number;
  readonly #waiting = new Map<string, Waiting>();
  #counter = 0;

  constructor(store: StoreApi<HeldActionState>, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  get heldCount(): number {
    return this.#waiting.size;
  }

  /** Offers the action to the person; resolves on Run, rejects otherwise (see above). */
  hold({ tool, details, clientName, signal, giveUpAt }: HoldRequest): Promise<void> {
    if (signal.aborted) return Promise.reject(cancelledError(signal));
    this.#counter += 1;
    const id = `held_${this.#counter}`;
    const heldAt = this.#now();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => this.#settle(id, notConfirmedError(tool)),
        Math.max(0, giveUpAt - heldAt),
      );
      const onAbort = () => this.#settle(id, cancelledError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      this.#waiting.set(id, {
        tool,
        resolve: () => {
          done();
          resolve();
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      this.#store
        .getState()
        .actionHeld({ id, tool, details, clientName, heldAt, deadlineAt: giveUpAt });
    });
  }

  /** The person's answer from the panel: Run (true) or Discard. Unknown ids are ignored. */
  answer(id: string, run: boolean): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#settle(id, run ? undefined : discardedError(waiting.tool));
  }

  #settle(id: string, error: ProtocolError | undefined): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    this.#store.getState().heldActionSettled(id);
    if (error === undefined) waiting.resolve();
    else waiting.reject(error);
  }
}
