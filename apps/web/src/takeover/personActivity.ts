// The person comes first on their own desktop: while they move the mouse, type or touch on the
// display, AI input waits until they have been idle for PERSON_IDLE_MS; while they have taken
// over ("Take over" in the chrome) it waits until they hand back — and if its deadline comes
// first it fails, saying why. A wait that saw a take-over says so, because what was approved
// before it must be confirmed again at hand back (heldActions.ts). Framework-free (timers and
// the clock are passed in) so the rules are unit-tested; the browser wiring listens on the
// display area in the capture phase.
import { ProtocolError } from '@overlay-companion/protocol';
import { throwIfCancelled } from '../control/sleep.js';
import { createStore, type StoreApi } from 'zustand/vanilla';

/** How long the person must leave the desktop alone before AI input goes on. */
export const PERSON_IDLE_MS = 1_000;
/** Give up this long before the call's deadline, so the AI gets our message, not a timeout. */
export const GIVE_UP_MARGIN_MS = 750;

export const TAKEN_OVER_MESSAGE =
  'The person has taken over the desktop ("Take over" in the viewer) and did not hand it back before this call\'s deadline, so nothing was done. Try again after they hand it back.';

/** What the AI is told when its request was on the approval panel as the person took over. */
export const WITHDRAWN_AT_TAKE_OVER_MESSAGE =
  'The person has taken over the desktop ("Take over" in the viewer) while this request waited for their approval, so it was withdrawn and nothing was done. Try again after they hand it back.';

/** The failure of a call that waited for a hand back until it had to give up. */
export function takenOverError(): ProtocolError {
  return new ProtocolError('cancelled', TAKEN_OVER_MESSAGE);
}

/** How a wait for the AI's turn ended. */
export interface Turn {
  /** How long it waited for the person (0: not at all). */
  waitedMs: number;
  /** The person had taken over at some moment of the wait (and has handed back since). */
  tookOver: boolean;
}

export interface TakeOverState {
  takenOver: boolean;
  /** Who changed it last: the person in this window, or the bridge telling of another window. */
  changedBy: 'person' | 'bridge';
  takenOverChanged: (on: boolean, by?: 'person' | 'bridge') => void;
}

export function createTakeOverStore(): StoreApi<TakeOverState> {
  return createStore<TakeOverState>()((set) => ({
    takenOver: false,
    changedBy: 'person',
    takenOverChanged: (takenOver, changedBy = 'person') => set({ takenOver, changedBy }),
  }));
}

export const takeOverStore = createTakeOverStore();

export interface PersonClock {
  now: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

export class PersonActivity {
  #lastActive = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: StoreApi<TakeOverState>,
    private readonly clock: PersonClock,
  ) {}

  /** The person used the desktop just now. */
  touched(): void {
    this.#lastActive = this.clock.now();
  }

  get takenOver(): boolean {
    return this.store.getState().takenOver;
  }

  /**
   * Resolves when AI input may go on: how long it waited and whether the person took over
   * meanwhile. Rejects with TAKEN_OVER_MESSAGE when `giveUpAt` comes while the person has taken
   * over, and with the signal's reason when it is aborted.
   */
  waitForTurn(signal: AbortSignal, giveUpAt: number): Promise<Turn> {
    return this.#wait(signal, giveUpAt, true);
  }

  /**
   * Like waitForTurn, but only for a hand back (the person's mouse does not matter): what waits
   * here is not yet shown to the person, who is asked once they have handed back.
   */
  waitForHandBack(signal: AbortSignal, giveUpAt: number): Promise<Turn> {
    return this.#wait(signal, giveUpAt, false);
  }

  async #wait(signal: AbortSignal, giveUpAt: number, untilIdle: boolean): Promise<Turn> {
    const started = this.clock.now();
    // Only time spent asleep here is waiting for the person (the clock may tick between two
    // reads even when they were idle all along: that is no wait).
    let slept = false;
    // Also a take-over and hand back quicker than one nap counts.
    let tookOver = false;
    const unsubscribe = this.store.subscribe((s) => {
      tookOver ||= s.takenOver;
    });
    try {
      for (;;) {
        throwIfCancelled(signal);
        const now = this.clock.now();
        const takenOver = this.store.getState().takenOver;
        tookOver ||= takenOver;
        const idleAt = untilIdle ? this.#lastActive + PERSON_IDLE_MS : Number.NEGATIVE_INFINITY;
        if (!takenOver && now >= idleAt) return { waitedMs: slept ? now - started : 0, tookOver };
        if (now >= giveUpAt) {
          if (takenOver) throw takenOverError();
          throw new ProtocolError(
            'timeout',
            'The person kept using the desktop until the deadline; try again when they pause.',
          );
        }
        const until = takenOver ? giveUpAt : Math.min(idleAt, giveUpAt);
        await this.clock.sleep(Math.max(10, Math.min(until - now, 250)), signal);
        slept = true;
      }
    } finally {
      unsubscribe();
    }
  }
}

/**
 * Listen for the person's own input on the desktop (elements inside `isDesktop`) anywhere under
 * `root`, in the capture phase, so nothing can hide it; returns the undo.
 */
export function watchPersonInput(
  root: Document,
  isDesktop: (target: EventTarget | null) => boolean,
  activity: PersonActivity,
): () => void {
  const touched = (event: Event) => {
    if (event.isTrusted && isDesktop(event.target)) activity.touched();
  };
  const kinds = ['pointermove', 'pointerdown', 'wheel', 'keydown', 'touchstart'] as const;
  for (const kind of kinds) root.addEventListener(kind, touched, { capture: true, passive: true });
  return () => {
    for (const kind of kinds) root.removeEventListener(kind, touched, { capture: true });
  };
}
