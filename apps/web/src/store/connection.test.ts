// Connection store transitions, including late events that must not revive an ended attempt.
import { describe, expect, it } from 'vitest';
import { INITIAL_CONNECTION, createConnectionStore } from './connection.js';

describe('connection store', () => {
  it('starts idle', () => {
    expect(createConnectionStore().getState()).toMatchObject(INITIAL_CONNECTION);
  });

  it('goes connecting → waiting → connected and clears the previous error', () => {
    const store = createConnectionStore();
    const s = () => store.getState();
    s().errorReported({ message: 'old', status: 519 });
    s().connectAttempted(2);
    expect(s()).toMatchObject({ phase: 'connecting', attempt: 2, retryAt: null });
    expect(s().lastError?.message).toBe('old');
    s().tunnelOpened();
    expect(s().phase).toBe('waiting');
    s().firstFrameReceived(1234);
    expect(s()).toMatchObject({ phase: 'connected', connectedSince: 1234, lastError: null });
  });

  it('a failure with a retry time is reconnecting; without one it is failed', () => {
    const store = createConnectionStore();
    const s = () => store.getState();
    s().connectAttempted(0);
    s().tunnelStabilityChanged(true);
    s().connectionFailed(9000);
    expect(s()).toMatchObject({ phase: 'reconnecting', retryAt: 9000, unstable: false });
    s().connectAttempted(1);
    s().connectionFailed(null);
    expect(s()).toMatchObject({ phase: 'failed', retryAt: null });
  });

  it('ignores open/first-frame events outside an attempt', () => {
    const store = createConnectionStore();
    const s = () => store.getState();
    s().tunnelOpened();
    expect(s().phase).toBe('idle');
    s().connectAttempted(0);
    s().connectionFailed(500);
    s().tunnelOpened();
    s().firstFrameReceived(1);
    expect(s().phase).toBe('reconnecting');
    s().connectAttempted(1);
    s().firstFrameReceived(2);
    s().tunnelOpened();
    expect(s().phase).toBe('connected');
  });

  it('sessionStopped returns to the initial state', () => {
    const store = createConnectionStore();
    store.getState().connectAttempted(3);
    store.getState().errorReported({ message: 'x', status: 512 });
    store.getState().sessionStopped();
    expect(store.getState()).toMatchObject(INITIAL_CONNECTION);
  });
});
