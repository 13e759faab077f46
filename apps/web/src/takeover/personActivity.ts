// The person comes first on their own desktop: while they move the mouse, type or touch on the
// display, AI input waits until they have been idle for PERSON_IDLE_MS; while they have taken
// over ("Take over" in the chrome) it waits until they hand back — and if its deadline comes
// first it fails, saying why. Framework-free (timers and the clock are passed in) so the rules
// are unit-tested; the browser wiring listens on the display area in the capture phase.
import { ProtocolError } from '@overlay-companion/protocol';
import { throwIfCancelled } from '../control/sleep.js';
import { createStore, type StoreApi } from 'zustand/vanilla';

/** How long the person must leave the desktop alone before AI input goes on. */
export const PERSON_IDLE_MS = 1_000;
/** Give up this long before the call's deadline, so the AI gets our message, not a timeout. */
export const GIVE_UP_MARGIN_MS = 750;

export const TAKEN_OVER_MESSAGE =
  'The person has taken over the desktop ("Take over" in the viewer). Try again after they hand it back.';

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

  /**
   * Resolves when AI input may go on, with how long it waited (0: not at all). Rejects with
   * TAKEN_OVER_MESSAGE when `giveUpAt` comes while the person has taken over, and with the
   * signal's reason when it is aborted.
   */
  async waitForTurn(signal: AbortSignal, giveUpAt: number): Promise<number> {
    const started = this.clock.now();
    // Only time spent asleep here is waiting for the person (the clock may tick between two
    // reads even when they were idle all along: that is no wait).
    let slept = false;
    for (;;) {
      throwIfCancelled(signal);
      const now = this.clock.now();
      const takenOver = this.store.getState().takenOver;
      const idleAt = this.#lastActive + PERSON_IDLE_MS;
      if (!takenOver && now >= idleAt) return slept ? now - started : 0;
      if (now >= giveUpAt) {
        throw new ProtocolError(
          'timeout',
          takenOver
            ? TAKEN_OVER_MESSAGE
            : 'The person kept using the desktop until the deadline; try again when they pause.',
        );
      }
      const until = takenOver ? giveUpAt : Math.min(idleAt, giveUpAt);
      await this.clock.sleep(Math.max(10, Math.min(until - now, 250)), signal);
      slept = true;
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
