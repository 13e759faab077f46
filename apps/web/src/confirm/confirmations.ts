// Asking the person. `ask()` shows a confirmation (through the confirmation store) and resolves
// true only when the person presses Approve in the panel; every other ending — Deny, the
// timeout, the call being cancelled, Stop — resolves false. Framework-free so the fail-closed
// rules are unit-tested with fake timers.
import type { StoreApi } from 'zustand/vanilla';
import type {
  ConfirmDetails,
  ConfirmationState,
  Grantable,
} from '../store/pendingConfirmations.js';

/** How a question ended, for the toast that tells the person. */
export type SettledReason = 'approved' | 'denied' | 'timeout' | 'withdrawn' | 'stopped';

/** How long the person has when the call gives no shorter deadline (matches the bridge). */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 30_000;

export interface AskOptions {
  /** Deny after this many ms; defaults to DEFAULT_CONFIRM_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Aborting (tool_cancel, deadline) withdraws the question and denies. */
  signal?: AbortSignal;
  /** A tool call the person may answer with a standing permission for this client. */
  grantable?: Grantable;
  /** The AI's `intent` for the call, shown to the person above what will happen. */
  intent?: string | undefined;
}

interface Waiting {
  details: ConfirmDetails;
  resolve: (how: SettledReason) => void;
  timer: ReturnType<typeof setTimeout>;
  detach: () => void;
}

export class Confirmations {
  readonly #store: StoreApi<ConfirmationState>;
  readonly #now: () => number;
  readonly #waiting = new Map<string, Waiting>();
  #counter = 0;
  /**
   * Ids are listed to the person's other windows, which answer by id (approval_answer): unique
   * per page, so an answer meant for another window's request can never settle one of ours.
   */
  readonly #prefix = `confirm_${Math.random().toString(36).slice(2, 10)}_`;

  readonly #onSettled: ((details: ConfirmDetails, reason: SettledReason) => void) | undefined;

  constructor(
    store: StoreApi<ConfirmationState>,
    now: () => number = Date.now,
    onSettled?: (details: ConfirmDetails, reason: SettledReason) => void,
  ) {
    this.#store = store;
    this.#now = now;
    this.#onSettled = onSettled;
  }

  get pendingCount(): number {
    return this.#waiting.size;
  }

  /** Asks; true only when the person pressed Approve. */
  async ask(details: ConfirmDetails, options: AskOptions = {}): Promise<boolean> {
    return (await this.askHow(details, options)) === 'approved';
  }

  /** Asks, and says how the question ended (Approve, Deny, no answer, withdrawn, Stop). */
  askHow(details: ConfirmDetails, options: AskOptions = {}): Promise<SettledReason> {
    const signal = options.signal;
    if (signal?.aborted === true) return Promise.resolve('withdrawn');
    const requested = options.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
    // A malformed timeout must not mean "wait forever" or "approve": clamp into a sane window.
    const timeoutMs = Number.isFinite(requested)
      ? Math.min(Math.max(requested, 0), DEFAULT_CONFIRM_TIMEOUT_MS)
      : DEFAULT_CONFIRM_TIMEOUT_MS;
    this.#counter += 1;
    const id = `${this.#prefix}${this.#counter}`;
    const askedAt = this.#now();
    return new Promise<SettledReason>((resolve) => {
      const onAbort = () => this.#settle(id, 'withdrawn');
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => this.#settle(id, 'timeout'), timeoutMs);
      this.#waiting.set(id, {
        details,
        resolve,
        timer,
        detach: () => signal?.removeEventListener('abort', onAbort),
      });
      this.#store.getState().asked({
        id,
        details,
        askedAt,
        deadlineAt: askedAt + timeoutMs,
        grantable: options.grantable,
        intent: options.intent,
      });
    });
  }

  /**
   * The person's answer from the panel, or from another of their windows (approval_answer,
   * relayed by the bridge). Unknown or already-settled ids are ignored: the first answer wins.
   */
  answer(id: string, approved: boolean): void {
    this.#settle(id, approved ? 'approved' : 'denied');
  }

  /** Stop (or the link dropped): deny everything that is waiting, at once. */
  denyAll(): void {
    for (const id of [...this.#waiting.keys()]) this.#settle(id, 'stopped');
  }

  #settle(id: string, reason: SettledReason): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    clearTimeout(waiting.timer);
    waiting.detach();
    this.#store.getState().settled(id, this.#now());
    waiting.resolve(reason);
    this.#onSettled?.(waiting.details, reason);
  }
}
