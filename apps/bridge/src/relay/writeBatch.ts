// One write per event-loop turn to a socket: what is sent to it while the turn's I/O callbacks
// run (tool_calls relayed for many MCP sessions, the mirror messages they cause) is held in the
// socket (cork) and leaves in one writev once they ran (setImmediate, the same turn's check
// phase — no timer, so a lone message waits only for the callbacks already under way). Each
// write to a loopback TCP socket costs a syscall that also runs the receiver's side of TCP;
// under load that was the bridge's largest cost per relayed call.
import type { Duplex } from 'node:stream';

/** Returns `hold`: call it before each write to `socket`; the turn's writes go out together. */
export function turnWriteBatch(socket: Duplex): () => void {
  let held = false;
  const release = (): void => {
    held = false;
    // A destroyed socket drops what it held, as it would have dropped the writes themselves.
    socket.uncork();
  };
  return () => {
    if (held) return;
    held = true;
    socket.cork();
    setImmediate(release);
  };
}
