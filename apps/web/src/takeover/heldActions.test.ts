// HeldActions on its own: an action held through a take-over resolves only on Run; Discard, its
// deadline and a cancellation reject with what the AI is told, and every ending clears the panel.
import { ProtocolError } from '@overlay-companion/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHeldActionStore } from '../store/heldActions.js';
import { HeldActions } from './heldActions.js';

const click = { kind: 'click', x: 10, y: 20, button: 'left', clicks: 1 } as const;

function setup() {
  const store = createHeldActionStore();
  const held = new HeldActions(store);
  const hold = (signal = new AbortController().signal, giveUpAt = Date.now() + 5_000) =>
    held.hold({ tool: 'click_at', details: click, clientName: 'Claude', signal, giveUpAt });
  return { store, held, hold, shown: () => store.getState().held };
}

describe('HeldActions', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows what is held and resolves on Run', async () => {
    const { held, hold, shown } = setup();
    const outcome = hold();
    expect(shown()).toMatchObject([{ tool: 'click_at', details: click, clientName: 'Claude' }]);
    held.answer(shown()[0]?.id ?? '', true);
    await expect(outcome).resolves.toBeUndefined();
    expect(shown()).toEqual([]);
    expect(held.heldCount).toBe(0);
  });

  it('rejects on Discard, saying the person discarded it', async () => {
    const { held, hold, shown } = setup();
    const outcome = hold();
    held.answer(shown()[0]?.id ?? '', false);
    await expect(outcome).rejects.toMatchObject({
      kind: 'permission_denied',
      message: expect.stringMatching(/^The person discarded this click_at/) as string,
    });
    // A second answer to the same id changes nothing.
    held.answer('held_1', true);
    expect(shown()).toEqual([]);
  });

  it('rejects when the call must give up, and when it is cancelled', async () => {
    const { hold, shown } = setup();
    const late = hold(new AbortController().signal, Date.now() + 2_000);
    const rejected = expect(late).rejects.toMatchObject({ kind: 'permission_denied' });
    await vi.advanceTimersByTimeAsync(2_000);
    await rejected;
    expect(shown()).toEqual([]);

    const abort = new AbortController();
    const stopped = hold(abort.signal);
    abort.abort(new ProtocolError('cancelled', 'Stopped: You pressed Stop.'));
    await expect(stopped).rejects.toThrow('Stopped: You pressed Stop.');
    expect(shown()).toEqual([]);
    await expect(hold(abort.signal)).rejects.toMatchObject({ kind: 'cancelled' });
    expect(shown()).toEqual([]);
  });
});
