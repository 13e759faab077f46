// Asking the person. `ask()` shows a confirmation (through the confirmation store) and resolves
// true only when the person presses Approve in the panel; every other ending — Deny, the
// timeout, the call being cancelled, Stop — resolves false. Framework-free so the fail-closed
// rules are unit-tested with fake timers.
import type { StoreApi } from 'zustand/vanilla';
import type { ConfirmDetails, ConfirmationState } from '../store/confirmations.js';

/** How long the person has when the call gives no shorter deadline (matches the bridge). */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 30_000;

export interface AskOptions {
  /** Deny after this many ms; defaults to DEFAULT_CONFIRM_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Aborting (tool_cancel, deadline) withdraws the question and denies. */
  signal?: AbortSignal;
}

interface Waiting {
  resolve: (approved: boolean) => void;
  timer: ReturnType<typeof setTimeout>;
  detach: () => void;
}

export class Confirmations {
  readonly #store: StoreApi<ConfirmationState>;
  readonly #now: () => number;
  readonly #waiting = new Map<string, Waiting>();
  #counter = 0;

  constructor(store: StoreApi<ConfirmationState>, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  get pendingCount(): number {
    return this.#waiting.size;
  }

  ask(details: ConfirmDetails, options: AskOptions = {}): Promise<boolean> {
    const signal = options.signal;
    if (signal?.aborted === true) return Promise.resolve(false);
    const requested = options.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
    // A malformed timeout must not mean "wait forever" or "approve": clamp into a sane window.
    const timeoutMs = Number.isFinite(requested)
      ? Math.min(Math.max(requested, 0), DEFAULT_CONFIRM_TIMEOUT_MS)
      : DEFAULT_CONFIRM_TIMEOUT_MS;
    this.#counter += 1;
    const id = `confirm_${this.#counter}`;
    const askedAt = this.#now();
    return new Promise<boolean>((resolve) => {
      const onAbort = () => this.#settle(id, false);
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => this.#settle(id, false), timeoutMs);
      this.#waiting.set(id, {
        resolve,
        timer,
        detach: () => signal?.removeEventListener('abort', onAbort),
      });
      this.#store.getState().asked({ id, details, askedAt, deadlineAt: askedAt + timeoutMs });
    });
  }

  /** The person's answer from the panel. Unknown or already-settled ids are ignored. */
  answer(id: string, approved: boolean): void {
    this.#settle(id, approved);
  }

  /** Stop: deny everything that is waiting, at once. */
  denyAll(): void {
    for (const id of [...this.#waiting.keys()]) this.#settle(id, false);
  }

  #settle(id: string, approved: boolean): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    clearTimeout(waiting.timer);
    waiting.detach();
    this.#store.getState().settled(id, this.#now());
    waiting.resolve(approved);
  }
}
