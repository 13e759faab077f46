// Names and plain-language explanations for Guacamole status codes, so the status bar can
// show "Upstream not found (519)" instead of a bare number. Also decides which codes are
// worth retrying: a request the server rejected as malformed or unauthorized will be
// rejected again, so retrying it only hides the problem.

const STATUS: Record<number, { name: string; text: string }> = {
  0x0000: { name: 'SUCCESS', text: 'Closed normally' },
  0x0100: { name: 'UNSUPPORTED', text: 'Not supported by the server' },
  0x0200: { name: 'SERVER_ERROR', text: 'Server error' },
  0x0201: { name: 'SERVER_BUSY', text: 'Server busy' },
  0x0202: { name: 'UPSTREAM_TIMEOUT', text: 'Remote desktop timed out' },
  0x0203: { name: 'UPSTREAM_ERROR', text: 'Remote desktop error' },
  0x0204: { name: 'RESOURCE_NOT_FOUND', text: 'Not found' },
  0x0205: { name: 'RESOURCE_CONFLICT', text: 'In use' },
  0x0206: { name: 'RESOURCE_CLOSED', text: 'Closed' },
  0x0207: { name: 'UPSTREAM_NOT_FOUND', text: 'Remote desktop not reachable' },
  0x0208: { name: 'UPSTREAM_UNAVAILABLE', text: 'Remote desktop unavailable' },
  0x0209: { name: 'SESSION_CONFLICT', text: 'Session taken over' },
  0x020a: { name: 'SESSION_TIMEOUT', text: 'Session timed out' },
  0x020b: { name: 'SESSION_CLOSED', text: 'Session closed' },
  0x0300: { name: 'CLIENT_BAD_REQUEST', text: 'Bad request' },
  0x0301: { name: 'CLIENT_UNAUTHORIZED', text: 'Not signed in' },
  0x0303: { name: 'CLIENT_FORBIDDEN', text: 'Not allowed' },
  0x0308: { name: 'CLIENT_TIMEOUT', text: 'Browser timed out' },
  0x030d: { name: 'CLIENT_OVERRUN', text: 'Too much data' },
  0x030f: { name: 'CLIENT_BAD_TYPE', text: 'Unsupported data type' },
  0x031d: { name: 'CLIENT_TOO_MANY', text: 'Too many connections' },
};

/** Symbolic name of a status code, e.g. 519 → "UPSTREAM_NOT_FOUND"; unknown codes → "STATUS_<n>". */
export function statusName(code: number): string {
  return STATUS[code]?.name ?? `STATUS_${code}`;
}

/** Short human text for a status code. */
export function statusText(code: number): string {
  return STATUS[code]?.text ?? `Guacamole status ${code}`;
}

// Codes whose cause will not go away by itself. Everything else (server busy, upstream
// unreachable, timeouts, closed sessions, network drops) is retried with backoff.
const FATAL = new Set([0x0100, 0x0300, 0x0301, 0x0303, 0x030f]);

/** Whether a connection that ended with this status should be retried automatically. */
export function isRetryable(code: number): boolean {
  return !FATAL.has(code);
}

/** Statuses that blame the remote desktop behind the server (UPSTREAM_*: 514, 515, 519, 520). */
export function isUpstream(code: number): boolean {
  return code === 0x0202 || code === 0x0203 || code === 0x0207 || code === 0x0208;
}
