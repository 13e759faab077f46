// Cancellable pauses for paced work (typing, drags, double clicks, batches). Aborting the
// signal — Stop, tool_cancel, the call's deadline — ends the pause at once with a `cancelled`
// ProtocolError, so a sequence never keeps sending input after the person pressed Stop.
import { ProtocolError } from '@overlay-companion/protocol';

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export function cancelledError(signal: AbortSignal): ProtocolError {
  const reason: unknown = signal.reason;
  if (reason instanceof ProtocolError) return reason;
  return new ProtocolError('cancelled', 'The call was cancelled before it finished.');
}

/** Throws the cancellation error when `signal` is already aborted. */
export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw cancelledError(signal);
}

export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(cancelledError(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError(signal));
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
