// Messages a window sends about what a tool call just did, held until the call's answer has left:
// the control window's overlay_* broadcasts to the person's other windows are queued during the
// call and sent, in order, in one microtask — after the synchronous tool_result of the same task.
// The answer is what the AI waits for; measured, a WebSocket send before it cost the draw_overlay
// round trip ~0.15 ms in the renderer. A following tool call is a later task, so its messages
// never overtake these.
export function afterAnswer<M>(send: (message: M) => void): (message: M) => void {
  let held: M[] = [];
  const release = (): void => {
    const messages = held;
    held = [];
    for (const message of messages) send(message);
  };
  return (message) => {
    if (held.length === 0) queueMicrotask(release);
    held.push(message);
  };
}
