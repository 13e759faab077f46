// The wire protocol version shared by the bridge and the viewer. Bump it on any change that
// an older peer would misread (renamed field, new required field, changed meaning); the
// viewer compares it with `hello.protocol_version` and refuses to run on a mismatch.
// 4: layout_changed, overlays carrying created_at/expires_at, request_annotation calls,
// ai_action, take_over, and tool_call only for the tools that run in the viewer.
// 5: desktops — desktop_state (who is in charge, who watches) and charge (take / hand over).
export const PROTOCOL_VERSION = 5 as const;
