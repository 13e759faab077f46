// The transfer store: a transfer runs, progresses and ends once; finished ones beyond the kept
// number go, oldest first, while running ones always stay.
import { describe, expect, it } from 'vitest';
import { createTransferStore } from './transferStore.js';

describe('the transfer store', () => {
  it('follows one transfer from start to end', () => {
    const store = createTransferStore();
    const id = store
      .getState()
      .transferStarted({ desktopId: 'd', direction: 'upload', name: 'a', size: 10 });
    store.getState().transferProgressed(id, 4);
    expect(store.getState().transfers).toMatchObject([{ id, loaded: 4, status: 'running' }]);
    store.getState().transferEnded(id, { status: 'failed', error: 'too big' });
    expect(store.getState().transfers).toMatchObject([{ id, status: 'failed', error: 'too big' }]);
  });

  it('keeps every running transfer and only the newest finished ones', () => {
    const store = createTransferStore();
    const start = (name: string) =>
      store.getState().transferStarted({ desktopId: 'd', direction: 'download', name, size: 1 });
    const first = start('running');
    for (let i = 0; i < 30; i++) store.getState().transferEnded(start(`f${i}`), { status: 'done' });
    start('last');
    const names = store.getState().transfers.map((t) => t.name);
    expect(names).toContain('running');
    expect(names).not.toContain('f0');
    expect(names).toContain('f29');
    expect(store.getState().transfers.find((t) => t.id === first)?.status).toBe('running');
  });
});
