// Running something after the tasks already waiting: a message on our own channel is queued
// behind the messages (a socket's, a page's) that arrived before it, so what came in a burst is
// handled first and the work it asks for runs once for all of it. Used by the overlay painting
// worker (one paint for the frames that came while it was busy) and by a mirror window (one store
// update for a burst of relayed overlay changes, control/overlaySync.ts).

/**
 * A scheduler: each call posts one message and runs the latest `run` given when it arrives
 * (callers post once per burst).
 */
export function afterQueued(): (run: () => void) => void {
  const channel = new MessageChannel();
  let pending: (() => void) | null = null;
  channel.port1.onmessage = () => {
    const run = pending;
    pending = null;
    run?.();
  };
  return (run) => {
    pending = run;
    channel.port2.postMessage(null);
  };
}
