// The wire protocol version shared by the bridge and the viewer. Bump it on any change that
// an older peer would misread (renamed field, new required field, changed meaning); the
// viewer compares it with `hello.protocol_version` and refuses to run on a mismatch.
export const PROTOCOL_VERSION = 3 as const;
