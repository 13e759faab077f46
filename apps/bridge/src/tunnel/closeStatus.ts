// How a Guacamole status travels in a WebSocket close frame. guacamole-common-js 1.5.0's
// WebSocketTunnel takes the status from the close *reason* with parseInt(reason) and only
// falls back to the close *code* when the reason is empty (1000 → success, 1006 → upstream not
// found, anything else → server error). So the reason starts with the decimal status, followed
// by a short human explanation that parseInt ignores and the client shows as the message. The
// code is 1000 for success and 4000 + status otherwise, in the range RFC 6455 leaves to
// applications, so non-Guacamole clients (tests, tools) can read the status from it too.

/** RFC 6455 limits the close reason to 123 bytes of UTF-8. */
const MAX_REASON_BYTES = 123;

export function closeCodeFor(status: number): number {
  return status === 0 ? 1000 : 4000 + status;
}

export function closeReasonFor(status: number, explanation: string): string {
  const reason = explanation ? `${status} ${explanation}` : String(status);
  if (Buffer.byteLength(reason, 'utf8') <= MAX_REASON_BYTES) return reason;
  // Cut on code points so the reason stays valid UTF-8 (ws rejects invalid reasons).
  const chars = [...reason];
  let cut = '';
  for (const ch of chars) {
    if (Buffer.byteLength(`${cut}${ch}…`, 'utf8') > MAX_REASON_BYTES) break;
    cut += ch;
  }
  return `${cut}…`;
}

/** Reads the status back from a close frame (for tests and the CLI's own clients). */
export function statusFromClose(code: number, reason: string): number {
  const fromReason = Number.parseInt(reason, 10);
  if (Number.isFinite(fromReason)) return fromReason;
  return code === 1000 ? 0 : code >= 4000 && code < 5000 ? code - 4000 : 512;
}
