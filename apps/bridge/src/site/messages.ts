// Every message on a site's NATS, as zod schemas: the broadcasts every bridge acts on (`SiteEvent`),
// a tool call or an AI's mode raise forwarded to the bridge that holds a desktop's control window
// and its answer (`ForwardedCall`, `ForwardedModeApproval`, `ForwardedAnswer`, `ForwardedCancel`),
// an approval answered in a window on another bridge (`ForwardedApprovalAnswer`, signed), a
// liveness ping to the bridge running a forwarded call and its answer (`BridgePing`, `BridgePong`),
// a bridge's "applied" answer to a broadcast that asks for one (`EventApplied`),
// and the control-window lease kept in
// the key-value store (`ControlLease`). Each is sealed with the site's key and opened and parsed
// where it arrives (siteSeal.ts, through siteBus.ts); one that fails either is dropped and logged,
// never acted on. Ids are bounded strings all the same.
import {
  AiAction,
  AiClientRef,
  AiClientsMessage,
  ApprovalsWaitingMessage,
  AskEnding,
  ClearOverlaysMessage,
  DesktopAccessLevel,
  OverlayCreatedMessage,
  OverlayRemovedMessage,
  SyncStateMessage,
  ErrorKind,
  MAX_ERROR_MESSAGE_LENGTH,
  Mode,
  TicketSocket,
  VIEWER_TOOL_NAMES,
  type ViewerToolName,
} from '@overlay-companion/protocol';
import { z } from 'zod';

const Id = z.string().min(1).max(200);
const Reason = z.string().max(500);
/** sha256 hex of a sign-in cookie or a ticket (the only form either ever leaves a bridge in). */
const SessionIdHash = z.string().regex(/^[0-9a-f]{64}$/);
/** The sending bridge (its random id for this run). */
const From = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

const TokenMatch = {
  tokenId: Id.optional(),
  personId: Id.optional(),
};
const hasMatch = (m: { tokenId?: string | undefined; personId?: string | undefined }): boolean =>
  m.tokenId !== undefined || m.personId !== undefined;

export const SiteEvent = z.discriminatedUnion('type', [
  /** Cached token lookups of a token, or of everything a person holds, are stale. */
  z
    .strictObject({ type: z.literal('tokens_invalidated'), from: From, ...TokenMatch })
    .refine(hasMatch, 'names no token and no person'),
  /** MCP sessions of a token (revoked) or of a person (disabled, removed) end everywhere. */
  z
    .strictObject({
      type: z.literal('mcp_sessions_ended'),
      from: From,
      ...TokenMatch,
      reason: Reason,
    })
    .refine(hasMatch, 'names no token and no person'),
  /** Sign-in sessions ended (sign-out, expiry, a person cut off): their sockets close. */
  z.strictObject({
    type: z.literal('sign_in_sessions_ended'),
    from: From,
    idHashes: z.array(SessionIdHash).min(1).max(1000),
    reason: Reason,
  }),
  /** A person's toggles changed: read them again where they are in charge. */
  z.strictObject({ type: z.literal('permissions_changed'), from: From, personId: Id }),
  /** A desktop's mode changed (by its person, an approved set_mode, or Stop). */
  z.strictObject({
    type: z.literal('mode_changed'),
    from: From,
    desktopId: Id,
    inChargeId: Id,
    mode: Mode,
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  /** Someone pressed Stop on a desktop: every bridge denies what waits there. */
  z.strictObject({
    type: z.literal('stopped'),
    from: From,
    desktopId: Id,
    byPersonId: Id.optional(),
    reason: Reason,
  }),
  /** A desktop's standing permissions changed: read them again from the store. */
  z.strictObject({ type: z.literal('standing_changed'), from: From, desktopId: Id }),
  /**
   * A bridge is back on NATS after it was away: what it said meanwhile may be lost, so every
   * bridge reads again from the store what lasts (records, charges, toggles, modes, standing).
   */
  z.strictObject({ type: z.literal('resync'), from: From }),
  /**
   * A bridge is in the site (said as it joins, asking every other to answer, and every minute):
   * the sealed presence that tells a bridge it is alone, which NATS's "no responders" cannot.
   */
  z.strictObject({ type: z.literal('bridge_here'), from: From }),
  /** A desktop's record, grants or charge changed, or it was removed: reload it from the store. */
  z.strictObject({ type: z.literal('desktop_changed'), from: From, desktopId: Id }),
  /** A socket ticket issued on a bridge (its hash and claims): it may be used on any. */
  z.strictObject({
    type: z.literal('ticket_issued'),
    from: From,
    hash: SessionIdHash,
    personId: Id,
    sessionIdHash: SessionIdHash,
    socket: TicketSocket,
    headless: z.boolean(),
    desktopId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional(),
    expiresAt: z.int().min(0),
  }),
  /**
   * The approvals the control window of a desktop lists (on the sending bridge), for the windows
   * of the person in charge on every other bridge to show; empty when nothing waits any more.
   */
  z.strictObject({
    type: z.literal('approvals_listed'),
    from: From,
    desktopId: Id,
    inChargeId: Id,
    requests: ApprovalsWaitingMessage.shape.requests,
  }),
  /** A change of a desktop's overlays, made by its control window on the sending bridge. */
  z.strictObject({
    type: z.literal('overlays_changed'),
    from: From,
    desktopId: Id,
    change: z.discriminatedUnion('type', [
      OverlayCreatedMessage,
      OverlayRemovedMessage,
      ClearOverlaysMessage,
      SyncStateMessage,
    ]),
  }),
  /** A window on the sending bridge took the desktop over from the AI (on) or handed it back. */
  z.strictObject({ type: z.literal('take_over'), from: From, desktopId: Id, on: z.boolean() }),
  /** What the AI did, as the control window on the sending bridge announced it (ai_action). */
  z.strictObject({ type: z.literal('ai_action'), from: From, desktopId: Id, action: AiAction }),
  /**
   * The AI clients with a live MCP session on the desktop through the sending bridge (all of
   * them, each time: the receivers replace what that bridge told before; told again every
   * AI_CLIENTS_REFRESH_MS while any, and forgotten when not told again for three times that).
   */
  z.strictObject({
    type: z.literal('ai_clients_listed'),
    from: From,
    desktopId: Id,
    clients: AiClientsMessage.shape.clients,
  }),
  /**
   * What the sending bridge holds open now, by limits/openElsewhere.ts openKey (MCP sessions of
   * each token and person, tunnels of each person): the site's caps count them (sharedCaps.ts).
   */
  z.strictObject({
    type: z.literal('open_counts'),
    from: From,
    counts: z
      .record(z.string().min(1).max(220), z.int().min(0).max(100_000))
      .refine((counts) => Object.keys(counts).length <= 20_000, 'too many counts'),
  }),
  /** A socket ticket used on a bridge: it works nowhere else. */
  z.strictObject({ type: z.literal('ticket_used'), from: From, hash: SessionIdHash }),
  /** Calls a bridge took from tokens' and persons' budgets (site/sharedLimits.ts). */
  z.strictObject({
    type: z.literal('rate_taken'),
    from: From,
    entries: z
      .array(
        z.strictObject({
          tokenId: Id,
          personId: Id,
          all: z.int().min(0).max(100_000),
          input: z.int().min(0).max(100_000),
        }),
      )
      .min(1)
      .max(500),
  }),
  /** A password sign-in failed on a bridge: every bridge counts it (auth/signInThrottle.ts). */
  z.strictObject({
    type: z.literal('sign_in_failed'),
    from: From,
    /** The username as counted (trimmed, lower-case). */
    account: z.string().max(200),
    /** The address as counted (addressKeyOf: loopback, an IPv4, an IPv6 /64). */
    addressKey: z.string().min(1).max(100),
    at: z.number().int().min(0),
  }),
]);
export type SiteEvent = z.infer<typeof SiteEvent>;
/** A SiteEvent as its sender writes it (the bus adds `from`). */
export type SiteEventInput = SiteEvent extends infer E
  ? E extends { from: string }
    ? Omit<E, 'from'>
    : never
  : never;

/** The largest time budget a forwarded call may ask for (the longest tool budget with approval). */
export const MAX_FORWARDED_TIMEOUT_MS = 15 * 60_000;

export const ForwardedCall = z.strictObject({
  type: z.literal('call'),
  from: From,
  /** The caller's id for this call (what ForwardedCancel names). */
  callId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  desktopId: Id,
  tool: z.enum(VIEWER_TOOL_NAMES as [ViewerToolName, ...ViewerToolName[]]),
  /** Parsed again with the tool's own schema where it arrives. */
  args: z.unknown(),
  policy: z.enum(['allow', 'confirm']),
  timeoutMs: z.int().min(1).max(MAX_FORWARDED_TIMEOUT_MS),
  client: AiClientRef.optional(),
  standingId: Id.optional(),
});
export type ForwardedCall = z.infer<typeof ForwardedCall>;

/** The AI's set_mode raise, asked at the control window on another bridge (ViewerHub.requestModeApproval). */
export const ForwardedModeApproval = z.strictObject({
  type: z.literal('mode_approval'),
  from: From,
  callId: ForwardedCall.shape.callId,
  desktopId: Id,
  fromMode: Mode,
  toMode: Mode,
  metadata: z.record(z.string(), z.unknown()).optional(),
  timeoutMs: z.int().min(1).max(MAX_FORWARDED_TIMEOUT_MS),
});
export type ForwardedModeApproval = z.infer<typeof ForwardedModeApproval>;

export const ForwardedCancel = z.strictObject({
  type: z.literal('cancel'),
  from: From,
  callId: ForwardedCall.shape.callId,
});
export type ForwardedCancel = z.infer<typeof ForwardedCancel>;

export const ForwardedAnswer = z.union([
  z.strictObject({ ok: z.literal(true), result: z.unknown() }),
  /**
   * A mode approval's answer; `answered` false: nobody answered in time (for the audit; optional,
   * so the answer of a bridge from before it still parses).
   */
  z.strictObject({ ok: z.literal(true), approved: z.boolean(), answered: z.boolean().optional() }),
  z.strictObject({
    ok: z.literal(false),
    error: z.strictObject({
      kind: ErrorKind,
      message: z.string().min(1).max(MAX_ERROR_MESSAGE_LENGTH),
      retryAfterMs: z.int().min(0).max(3_600_000).optional(),
      /** The viewer reported it (tool_error), and how its question to the person ended. */
      viewer: z.boolean(),
      asked: AskEnding.optional(),
    }),
  }),
]);
export type ForwardedAnswer = z.infer<typeof ForwardedAnswer>;

/**
 * An approval answered in a window on the sending bridge, sent to the bridge whose control
 * window lists it. Signed with the site's key for approval answers (siteKeys.ts), which only a
 * bridge that can read the site's database has: the NATS credentials alone cannot approve. The
 * holder checks the signature, then again that the person is in charge there and the request
 * still waits (the first answer takes it, so a replay is refused).
 */
export const ForwardedApprovalAnswer = z.strictObject({
  type: z.literal('approval_answer'),
  from: From,
  desktopId: Id,
  personId: Id,
  access: DesktopAccessLevel,
  requestId: Id,
  approved: z.boolean(),
  mac: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});
export type ForwardedApprovalAnswer = z.infer<typeof ForwardedApprovalAnswer>;

/** What the signature of a ForwardedApprovalAnswer covers, in order. */
export function approvalAnswerFields(answer: Omit<ForwardedApprovalAnswer, 'mac'>): unknown[] {
  return [
    answer.type,
    answer.from,
    answer.desktopId,
    answer.personId,
    answer.access,
    answer.requestId,
    answer.approved,
  ];
}

/** "Your overlays of this desktop, please": to the bridge with its control window. */
export const OverlaysWanted = z.strictObject({
  type: z.literal('overlays_wanted'),
  from: From,
  desktopId: Id,
});

/** "Are you there?" to a bridge holding a forwarded call (answered by every live bridge). */
export const BridgePing = z.strictObject({ type: z.literal('ping'), from: From });

/** "Yes": a bridge's answer to a ping, sealed for the asker's reply inbox (site/bridgePing.ts). */
export const BridgePong = z.strictObject({ type: z.literal('pong'), from: From });

/**
 * "Applied": a bridge's answer to a broadcast that asks for one, once it acted on it, sealed for
 * the sender's reply subject (site/siteAcks.ts).
 */
export const EventApplied = z.strictObject({ type: z.literal('applied'), from: From });

/** Who holds a desktop's control window: the lease's value in the key-value store. */
export const ControlLease = z.strictObject({
  bridge: From,
  /** The control window is the headless viewer: approvals go through the MCP client. */
  headless: z.boolean(),
});
export type ControlLease = z.infer<typeof ControlLease>;
