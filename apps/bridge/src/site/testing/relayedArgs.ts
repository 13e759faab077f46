// Test support: what a test reads of a tool call relayed to a window — the x of its args (the
// union of every tool's args has no common x, so the protocol's type cannot say it).
export function argX(message: object): unknown {
  return (message as { args?: { x?: unknown } }).args?.x;
}
