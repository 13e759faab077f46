// Viewer⇄bridge messages on the /ws/viewer WebSocket: JSON text frames, discriminated on `type`.
// Each direction is one union (BridgeToViewer, ViewerToBridge) with a safe parser that never
// throws. Overlay store messages travel in both directions: the control viewer sends
// overlay_created / overlay_removed / clear_overlays and the bridge relays them to mirror
// windows; a (re)connecting window sends request_sync, the bridge forwards it to the control
// viewer (or answers from its own copy), and the answer is a sync_state snapshot.
import { z } from 'zod';
import { Id, Mode, Seq } from './common.js';
import { ErrorKind, MAX_ERROR_MESSAGE_LENGTH, formatZodIssues } from './errors.js';
import { ModeMetadata } from './tools/mode.js';
import { MAX_OVERLAYS, Overlay, OverlayId } from './tools/overlay.js';
import { EVENT_TYPES, EventType, UiEvent } from './tools/events.js';
import { Permissions } from './permissions.js';
import { AiClientRef } from './aiClient.js';
import { AiActionMessage, TakeOverMessage } from './aiAction.js';
import { ChargeMessage, DesktopStateMessage } from './desktopState.js';
import {
  StandingGrantMessage,
  StandingPermissionsMessage,
  StandingRevokeMessage,
} from './standingMessages.js';
import { toolDefinitions } from './tools/registry.js';
import { VIEWER_TOOL_NAMES, type ToolArgs, type ViewerToolName } from './tools/names.js';
import { MonitorLayout } from './api/layout.js';
import { Intent } from './tools/intent.js';
import { ApprovalPreview } from './approvalPreview.js';
import { CallReceiptToken, InputSentMessage } from './inputReceipt.js';

/** Largest text frame either side accepts, in UTF-16 code units; sized for screenshot results. */
export const MAX_MESSAGE_CHARS = 16 * 1024 * 1024;

const CallId = Id.describe('Tool call id chosen by the bridge; echoed in tool_result/tool_error.');
const Reason = z.string().max(500).describe('Why, in words the person can read.');

// ---- overlay store (both directions) ----------------------------------------------------

export const OverlayCreatedMessage = z.strictObject({
  type: z.literal('overlay_created'),
  overlay: Overlay,
  seq: Seq.describe('Store sequence number after this change.'),
});
export const OverlayRemovedMessage = z.strictObject({
  type: z.literal('overlay_removed'),
  overlay_id: OverlayId,
  seq: Seq,
});
export const ClearOverlaysMessage = z.strictObject({
  type: z.literal('clear_overlays'),
  seq: Seq,
});

/**
 * Bridge → control viewer: an overlay the bridge drew for a draw_overlay call it settled itself
 * (the AI already has its id and bounds). The control window adds it to its store as one it drew
 * (its own clock for the times, the store's next seq or `seq` if higher) and tells the bridge
 * and the other windows with overlay_created, as for its own; with no room it sends
 * overlay_removed for it instead, so every copy converges. Sent on the control window's socket,
 * in order with the tool calls, so a later remove_overlay finds it.
 */
export const OverlayPutMessage = z.strictObject({
  type: z.literal('overlay_put'),
  overlay: Overlay,
  seq: Seq.describe(
    "The next seq after the bridge's copy: the least the window gives this change.",
  ),
});
/** Full overlay store snapshot; the receiver replaces its store and continues from `seq`. */
export const SyncStateMessage = z.strictObject({
  type: z.literal('sync_state'),
  seq: Seq.describe('Sequence number of the snapshot; later changes have larger seq.'),
  overlays: z.array(Overlay).max(MAX_OVERLAYS),
});
/** "Send me the whole store": from a (re)connecting window, forwarded to the control viewer. */
export const RequestSyncMessage = z.strictObject({ type: z.literal('request_sync') });

// ---- bridge → viewer --------------------------------------------------------------------

export const HelloMessage = z.strictObject({
  type: z.literal('hello'),
  protocol_version: z.int().min(0).describe('Compare with PROTOCOL_VERSION; refuse on mismatch.'),
  viewer_id: Id.describe('Id the bridge gave this viewer window.'),
  mode: Mode,
  role: z
    .enum(['control', 'mirror'])
    .describe('control executes tool calls and owns the overlay store; mirror only displays.'),
  headless: z
    .boolean()
    .describe(
      "This window is the bridge's own headless viewer (nobody watches it): approvals go to the MCP client instead. Decided by the bridge from the sign-in session, never by the page.",
    ),
  permissions: Permissions.describe("The person's permission toggles (see permissions.ts)."),
});

const PolicyForViewer = z
  .enum(['allow', 'confirm'])
  .describe('confirm: ask the person before executing; a refusal is tool_error permission_denied.');
const DeadlineMs = z
  .int()
  .min(1)
  .max(3_600_000)
  .describe(
    'Time budget in milliseconds from receipt (relative, to be immune to clock skew); after it the bridge has already failed the call.',
  );

function toolCallVariant<N extends ViewerToolName>(name: N) {
  return z.strictObject({
    type: z.literal('tool_call'),
    id: CallId,
    name: z.literal(name),
    args: toolDefinitions[name].input,
    policy: PolicyForViewer,
    deadline_ms: DeadlineMs,
    client: AiClientRef.optional().describe(
      'The AI client that made the call (from its MCP session, never from its arguments): what a standing permission is scoped to.',
    ),
    standing_id: Id.optional().describe(
      'policy allow because of this standing permission (standing_permissions lists it); the viewer runs the call without asking only while it lists the same permission for this tool and client.',
    ),
    receipt: CallReceiptToken.optional().describe(
      "The id to ask the input's receipt under, and to announce with input_sent (inputReceipt.ts).",
    ),
  });
}

/**
 * A tool call for the control viewer: one variant per tool whose definition runs in the viewer
 * (derived from the registry, so a new viewer tool is on the wire without an edit here). `args`
 * were parsed by the bridge (defaults applied) and are parsed again here, so the viewer's handler
 * gets exactly ToolArgs<name>. Bridge tools never reach a viewer.
 */
const toolCallVariants = VIEWER_TOOL_NAMES.map((name) => toolCallVariant(name));
export const ToolCallMessage = z.discriminatedUnion(
  'name',
  toolCallVariants as [(typeof toolCallVariants)[number], ...(typeof toolCallVariants)[number][]],
);
export type ToolCallMessage = z.infer<typeof ToolCallMessage>;

/**
 * A parsed tool_call with `args` typed by `name`. This is what the union guarantees at run time
 * (each variant parses its own args), but zod's inferred type loses the name→args link inside
 * the generic helper above; `switch (call.name)` over this type narrows `args` per tool.
 */
export type TypedToolCall = {
  [N in ViewerToolName]: Omit<ToolCallMessage, 'name' | 'args'> & { name: N; args: ToolArgs<N> };
}[ViewerToolName];

/** Narrows a parsed tool_call to TypedToolCall (no run-time work: the parse already did it). */
export function typedToolCall(message: ToolCallMessage): TypedToolCall {
  return message as TypedToolCall;
}

export const ToolCancelMessage = z.strictObject({
  type: z.literal('tool_cancel'),
  id: CallId,
  reason: Reason,
});
export const ModeChangedMessage = z.strictObject({
  type: z.literal('mode_changed'),
  mode: Mode,
  metadata: ModeMetadata.optional().describe('The custom policy when mode is custom.'),
});
/**
 * The bridge asks the person to approve a mode raise (see decideModeChange); answered by
 * `approval`. The AI asks with set_mode; the person asks by choosing a higher mode in a window,
 * and confirms it here, outside the remote canvas.
 */
export const ApprovalRequestMessage = z.strictObject({
  type: z.literal('approval_request'),
  request_id: Id,
  from_mode: Mode,
  to_mode: Mode,
  requested_by: z.enum(['ai', 'person']).describe('Who asked for the raise.'),
  metadata: ModeMetadata.optional().describe('The requested custom policy, to show the person.'),
  deadline_ms: DeadlineMs,
});
export const StopMessage = z.strictObject({ type: z.literal('stop'), reason: Reason });
/** The person changed their permission toggles (in any window or the settings page). */
export const PermissionsChangedMessage = z.strictObject({
  type: z.literal('permissions_changed'),
  permissions: Permissions,
});
/**
 * Which UI event types some MCP subscription currently collects (subscribe_events). The viewer
 * streams only these, so what the person types is not sent when nobody asked for key presses.
 * The bridge sends it after hello and whenever subscriptions change; a viewer that never got
 * one (an older bridge) streams every type.
 */
export const EventInterestMessage = z.strictObject({
  type: z.literal('event_interest'),
  events: z
    .array(EventType)
    .max(EVENT_TYPES.length)
    .refine((list) => new Set(list).size === list.length, {
      error: 'must not list the same event type twice',
    }),
});

/**
 * The person's monitor layout and privacy masks (saved on the layout page), sent after hello and
 * whenever they save it; null when they have none (one monitor: the whole desktop). Monitor
 * indexes in tool calls refer to it; masked areas are blacked out of everything the AI sees.
 */
export const LayoutChangedMessage = z.strictObject({
  type: z.literal('layout_changed'),
  layout: MonitorLayout.nullable(),
});

/** Most waiting approvals one approvals_waiting message lists. */
export const MAX_LISTED_APPROVALS = 20;

/**
 * What the control window is asking the person right now (its approval queue), so every other
 * window of the person shows that an approval waits. Sent by the control viewer whenever its
 * queue changes; the bridge relays it to the person's other windows (and drops it from a
 * mirror). Summaries only. A request with a `request_id` may be answered from any window of the
 * person in charge (approval_answer); one without (Run / Discard of an action held through a
 * take-over) is answered in the control window.
 */
export const ApprovalsWaitingMessage = z.strictObject({
  type: z.literal('approvals_waiting'),
  requests: z
    .array(
      z.strictObject({
        title: z
          .string()
          .min(1)
          .max(200)
          .describe('What the AI asks, e.g. "Click with the left button".'),
        deadline_in_ms: z.int().min(0).max(3_600_000).describe('Time left before it is denied.'),
        request_id: Id.optional().describe(
          "The control window's id for this question, echoed by approval_answer from another window.",
        ),
        intent: Intent.describe(
          "The AI's own reason (the tool's intent argument), if it gave one.",
        ),
        preview: ApprovalPreview.optional().describe(
          "The desktop's pixels around the point the action targets, for windows that do not show it.",
        ),
      }),
    )
    .max(MAX_LISTED_APPROVALS),
});

/**
 * The person answered, in a window that is not the control window, a request the control window
 * listed in approvals_waiting. Viewer → bridge from that window; the bridge checks it comes from
 * a window of the person in charge and that the request still waits, then relays the same
 * message to the control window, which settles it as if answered in its own panel (the first
 * answer wins; its next approvals_waiting closes the request everywhere).
 */
export const ApprovalAnswerMessage = z.strictObject({
  type: z.literal('approval_answer'),
  request_id: Id,
  approved: z.boolean(),
});
export type ApprovalAnswerMessage = z.infer<typeof ApprovalAnswerMessage>;

/** Most AI clients one aiClients message lists (the bridge caps sessions per person at 64). */
export const MAX_LISTED_AI_CLIENTS = 64;

/**
 * The AI clients acting for this person right now (their live MCP sessions, grouped by
 * AiClientRef.key), sent after hello and whenever one connects, leaves or calls a tool
 * (coalesced). Never lists another person's clients.
 */
export const AiClientsMessage = z.strictObject({
  type: z.literal('ai_clients'),
  clients: z
    .array(
      z.strictObject({
        client: AiClientRef,
        sessions: z.int().min(1).max(1000).describe('Live MCP sessions of this client.'),
        connected_since: z.int().min(0).describe('Epoch ms of its oldest live session.'),
        last_call_at: z.int().min(0).nullable().describe('Epoch ms of its latest tool call.'),
      }),
    )
    .max(MAX_LISTED_AI_CLIENTS),
});

/**
 * The bridge could not parse or apply a message this viewer sent (bad frame, late answer for a
 * finished call, a mirror sending what only the control viewer may). Informational: the socket
 * stays up; the viewer logs it.
 */
export const BridgeErrorMessage = z.strictObject({
  type: z.literal('error'),
  message: z.string().min(1).max(MAX_ERROR_MESSAGE_LENGTH),
});

export const BridgeToViewer = z.discriminatedUnion('type', [
  HelloMessage,
  ToolCallMessage,
  ToolCancelMessage,
  ModeChangedMessage,
  ApprovalRequestMessage,
  StopMessage,
  SyncStateMessage,
  RequestSyncMessage,
  OverlayCreatedMessage,
  OverlayRemovedMessage,
  ClearOverlaysMessage,
  OverlayPutMessage,
  BridgeErrorMessage,
  EventInterestMessage,
  PermissionsChangedMessage,
  AiClientsMessage,
  ApprovalsWaitingMessage,
  ApprovalAnswerMessage,
  LayoutChangedMessage,
  AiActionMessage,
  TakeOverMessage,
  DesktopStateMessage,
  StandingPermissionsMessage,
]);
export type BridgeToViewer = z.infer<typeof BridgeToViewer>;

// ---- viewer → bridge --------------------------------------------------------------------

/**
 * How a question to the person ended when it ended the call: they pressed Deny, did not answer in
 * time, the question was withdrawn (the AI cancelled, the person took the desktop over), or Stop.
 */
export const ASK_ENDINGS = ['denied', 'timeout', 'withdrawn', 'stopped'] as const;
export const AskEnding = z.enum(ASK_ENDINGS);
export type AskEnding = z.infer<typeof AskEnding>;

/** `result` is checked by the bridge against toolDefinitions[name].viewerResult (parseToolResult). */
export const ToolResultMessage = z.strictObject({
  type: z.literal('tool_result'),
  id: CallId,
  result: z.record(z.string(), z.unknown()),
});
export const ToolErrorMessage = z.strictObject({
  type: z.literal('tool_error'),
  id: CallId,
  kind: ErrorKind,
  message: z.string().min(1).max(MAX_ERROR_MESSAGE_LENGTH),
  retry_after_ms: z.int().min(0).max(3_600_000).optional(),
  asked: AskEnding.optional().describe(
    'The call ended with its question to the person: how that question ended (for the audit).',
  ),
});
export const ApprovalMessage = z.strictObject({
  type: z.literal('approval'),
  request_id: Id,
  approved: z.boolean(),
});
/**
 * The person chose a mode in the viewer. Lowering applies at once; raising is applied only once
 * the person approves the approval_request the bridge sends back (decideModeChange), and a
 * headless viewer can never raise. Either way the bridge broadcasts mode_changed.
 */
export const ModeSetMessage = z.strictObject({
  type: z.literal('mode_set'),
  mode: Mode,
  metadata: ModeMetadata.optional().describe('The custom policy when mode is custom.'),
});
export const StopPressedMessage = z.strictObject({ type: z.literal('stop_pressed') });
export const EventMessage = z.strictObject({ type: z.literal('event'), event: UiEvent });
/**
 * "Make this the control window": a mirror of the person in charge asks to run the AI's calls
 * and approvals from now on. The old control window becomes a mirror (hello), what it held fails.
 */
export const TakeControlMessage = z.strictObject({ type: z.literal('take_control') });

export const ViewerToBridge = z.discriminatedUnion('type', [
  ToolResultMessage,
  ToolErrorMessage,
  InputSentMessage,
  ApprovalMessage,
  OverlayCreatedMessage,
  OverlayRemovedMessage,
  ClearOverlaysMessage,
  SyncStateMessage,
  RequestSyncMessage,
  ModeSetMessage,
  StopPressedMessage,
  EventMessage,
  ApprovalsWaitingMessage,
  ApprovalAnswerMessage,
  TakeControlMessage,
  AiActionMessage,
  TakeOverMessage,
  ChargeMessage,
  StandingGrantMessage,
  StandingRevokeMessage,
]);
export type ViewerToBridge = z.infer<typeof ViewerToBridge>;

// ---- parsing ----------------------------------------------------------------------------

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

const BRIDGE_TYPES = new Map<string, z.ZodType<BridgeToViewer>>(
  BridgeToViewer.options.map((s) => [
    s instanceof z.ZodDiscriminatedUnion ? 'tool_call' : s.shape.type.value,
    s,
  ]),
);
const VIEWER_TYPES = new Map<string, z.ZodType<ViewerToBridge>>(
  ViewerToBridge.options.map((s) => [s.shape.type.value, s]),
);

export function parseBridgeMessage(raw: unknown): ParseResult<BridgeToViewer> {
  return parseWith(raw, BRIDGE_TYPES, 'bridge');
}

export function parseViewerMessage(raw: unknown): ParseResult<ViewerToBridge> {
  return parseWith(raw, VIEWER_TYPES, 'viewer');
}

function parseWith<T>(
  raw: unknown,
  byType: ReadonlyMap<string, z.ZodType<T>>,
  from: string,
): ParseResult<T> {
  if (typeof raw !== 'string') {
    return { ok: false, error: `${from} message must be a JSON text frame, got ${typeof raw}` };
  }
  if (raw.length > MAX_MESSAGE_CHARS) {
    return {
      ok: false,
      error: `${from} message is ${raw.length} characters, over the ${MAX_MESSAGE_CHARS} limit; send smaller screenshots (region, scale, jpeg)`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    // V8 quotes the start of the text it could not parse ('Unexpected token …, "…" is not valid
    // JSON'); that text is what the sender typed or copied, and this error is logged. Keep only
    // messages that quote nothing of it (positions, "Unexpected end of JSON input").
    const why =
      err instanceof Error && !err.message.includes('"') ? `: ${err.message.slice(0, 200)}` : '';
    return { ok: false, error: `${from} message is not valid JSON${why}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `${from} message must be a JSON object with a "type" field` };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') {
    return { ok: false, error: `${from} message has no string "type" field` };
  }
  const schema = byType.get(type);
  if (schema === undefined) {
    const known = [...byType.keys()].join(', ');
    // Named only when it looks like a message type: any other text is whatever the sender put
    // there, and this error is logged.
    const named = /^[a-z_]{1,40}$/.test(type) ? ` ${JSON.stringify(type)}` : '';
    return {
      ok: false,
      error: `unknown ${from} message type${named}; expected one of ${known}`,
    };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      error: `invalid ${type} message: ${formatZodIssues(parsed.error, { input: value })}`,
    };
  }
  return { ok: true, message: parsed.data };
}

/** Serializes a message for sending; typed so only valid shapes compile. */
export function encodeBridgeMessage(message: BridgeToViewer): string {
  return JSON.stringify(message);
}

export function encodeViewerMessage(message: ViewerToBridge): string {
  return JSON.stringify(message);
}
