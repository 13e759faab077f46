// The wire protocol version shared by the bridge and the viewer. Bump it on any change that
// an older peer would misread (renamed field, new required field, changed meaning); the
// viewer compares it with `hello.protocol_version` and refuses to run on a mismatch.
// 4: layout_changed, overlays carrying created_at/expires_at, request_annotation calls,
// ai_action, take_over, and tool_call only for the tools that run in the viewer.
// 5: desktops — desktop_state (who is in charge, who watches) and charge (take / hand over).
// 6: answer anywhere — approvals_waiting entries carry request_id, approval_answer (a mirror of
// the person in charge answers; the bridge relays it to the control window) and take_control
// ("Make this the control window"). An older control window would ignore relayed answers.
// 7: standing permissions kept by the bridge — standing_permissions, standing_grant,
// standing_revoke, tool_call.standing_id — and tool_error.asked (how the question ended).
// 8: approvals_waiting entries carry the AI's intent and a preview square of desktop pixels (an
// older bridge's strict schema would refuse the whole list).
// 9: overlay_put — the bridge draws a plain draw_overlay itself and hands the control window
// the overlay (an older viewer would refuse the message).
// 10: tool_call.receipt and input_sent — input calls settle from the tunnel's receipt (an older
// viewer's strict schema would refuse the tool_call, an older bridge the input_sent).
export const PROTOCOL_VERSION = 10 as const;
