// The tools/call pipeline, in the order that keeps the desktop safe: rate limits (the session's,
// then the token's and the person's) → an audit that can record it (auditQueue.ts) → parse args with the tool's zod schema (bad args never
// reach a viewer) → the desktop (sessionDesktop.ts: the token may use it, its person is in
// charge unless the tool only looks) → the one policy (decideCall: permissions, mode,
// require_user_confirmation) → the tool's handler (approval and relay live in relayCall.ts) → check the structured result
// against the tool's schema → one audit entry, whatever happened. Every failure becomes an
// isError result with a kind (results.ts); nothing here throws.
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import {
  ProtocolError,
  aiClientRef,
  type AskEnding,
  detailWithIntent,
  formatZodIssues,
  ignoredArgs,
  intentOfArgs,
  needsInputPolicy,
  type ToolName,
} from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/auditLog.js';
import { decidedEnding, policyDecider } from '../audit/decider.js';
import { summarizeArgs } from '../audit/summarize.js';
import type { SharedRateLimits } from '../limits/rateLimit.js';
import { asProtocolError, errorResult, successResult } from './results.js';
import type { BridgeTool, CallNote, ToolContext } from './toolkit.js';
import type { DesktopPlane } from './desktopPlanes.js';
import { describeStanding } from './planeAudit.js';
import { decideOnPlane } from './planeDecision.js';
import { ViewerReportedError } from '../relay/callRelay.js';

/** The audit outcome of a call whose question to the person ended it. */
export const ASK_OUTCOMES: Readonly<Record<AskEnding, string>> = {
  denied: 'denied_by_person',
  timeout: 'no_answer',
  withdrawn: 'withdrawn',
  stopped: 'stopped',
};
import type { Permissions } from '@overlay-companion/protocol';

export interface CallServices {
  limits: SharedRateLimits;
  audit: AuditLog;
  logger: Logger;
}

export type CallContext = Omit<ToolContext, 'decision' | 'note' | 'plane' | 'audit'> & {
  /** The token person's own toggles, for the audit of a call that found no desktop. */
  fallbackPermissions: Permissions;
};

export async function runToolCall(
  tool: BridgeTool<ToolName> | undefined,
  name: string,
  rawArgs: unknown,
  ctx: CallContext,
  services: CallServices,
): Promise<CallToolResult> {
  const startedAt = Date.now();
  ctx.session.lastCallAt = startedAt;
  // Only a known tool's name: the fleet page shows it.
  if (tool !== undefined) ctx.session.lastTool = name;
  ctx.session.desktop.current?.aiClientsChanged();
  const started = performance.now();
  const note: CallNote = { decision: null, approvedBy: null };
  let outcome = 'ok';
  let screenshot: { mimeType: string; data: Buffer } | null = null;
  let plane: DesktopPlane | undefined;
  /** The desktop's stop signal when the call began: its reason names who pressed Stop since. */
  const stop: { signal?: AbortSignal } = {};
  /** The AI's intent, once the arguments parsed: kept on the audit entry's detail line. */
  const said: { intent?: string | undefined } = {};
  const finish = (result: CallToolResult): CallToolResult => {
    const { principal } = ctx.session;
    // Before a desktop is known, the person's own toggles decide what the audit keeps.
    const permissions = plane?.permissions() ?? ctx.fallbackPermissions;
    if (permissions.audit_screenshots) screenshot = imageOf(result.content);
    const ended = decidedEnding({
      decision: note.decision,
      noted: note.decidedBy,
      outcome,
      inCharge: plane?.inCharge(),
      stopReason: stop.signal?.aborted === true ? (stop.signal.reason as unknown) : undefined,
    });
    services.audit.recordCall({
      at: startedAt,
      kind: 'tool_call',
      actor: 'ai',
      personId: principal.personId,
      personName: principal.personName,
      tokenId: principal.tokenId,
      tokenName: principal.tokenName,
      clientName: ctx.session.clientName(),
      tool: name.slice(0, 64),
      summary: summarizeArgs(
        tool?.definition ?? name,
        rawArgs,
        permissions.audit_typed_text,
        said.intent !== undefined,
      ),
      detail: detailWithIntent(
        plane === undefined
          ? null
          : `desktop ${plane.desktopName}${note.standing === undefined ? '' : ` · ${note.standing}`}`,
        said.intent,
      ),
      decision: note.decision,
      approvedBy: note.approvedBy,
      outcome: ended.outcome,
      durationMs: Math.round(performance.now() - started),
      screenshot,
      desktopId: plane?.desktopId,
      intent: said.intent,
      decider: ended.decidedBy,
    });
    return result;
  };
  const fail = (error: ProtocolError): CallToolResult => {
    // A question to the person that ended the call says how it ended (denied, no answer, …):
    // the window's report, or the handler's note (a mode raise, asked by the bridge).
    const asked = (error instanceof ViewerReportedError ? error.asked : undefined) ?? note.asked;
    outcome = asked === undefined ? error.kind : ASK_OUTCOMES[asked];
    return finish(errorResult(error));
  };

  if (tool === undefined) {
    return fail(
      new ProtocolError(
        'invalid_parameters',
        `name: there is no tool ${JSON.stringify(name.slice(0, 64))}; call tools/list for the available tools.`,
      ),
    );
  }
  const isInput = needsInputPolicy(tool.name);
  const { principal } = ctx.session;
  const rate = ctx.session.rateLimiter.tryTake(isInput);
  const shared = rate.ok
    ? services.limits.tryTake(principal.tokenId, principal.personId, isInput)
    : rate;
  if (!shared.ok) {
    return fail(
      new ProtocolError(
        'rate_limited',
        `Too many calls (limit for ${shared.limit}). Retry in ${shared.retryAfterMs} ms.`,
        shared.retryAfterMs,
      ),
    );
  }
  // The person's policy depends on the record: while the audit cannot keep up (the store is
  // unavailable and its queue is full), desktop input waits; tools that only look go on.
  const unaudited = services.audit.refusal(isInput);
  if (unaudited !== undefined) return fail(unaudited);
  // `desktop` is every tool's optional extension (select_desktop's own argument aside): which
  // desktop this one call works on. It is taken off before the tool's strict schema sees it.
  const { desktop: desktopRef, args: toolArgs } = splitDesktopArg(tool.name, rawArgs);
  if (desktopRef instanceof ProtocolError) return fail(desktopRef);
  const parsed = tool.definition.input.safeParse(toolArgs ?? {});
  if (!parsed.success) {
    return fail(
      new ProtocolError(
        'invalid_parameters',
        `invalid arguments for ${tool.name}: ${formatZodIssues(parsed.error)}.`,
      ),
    );
  }
  said.intent = intentOfArgs(parsed.data);
  // Then the desktop: one this token may use, where (unless the tool only looks) its person is
  // in charge.
  try {
    plane = await ctx.session.desktop.forCall(tool.name, desktopRef);
  } catch (err) {
    return fail(asProtocolError(err));
  }
  stop.signal = plane.stopSignal();
  const verdict = decideOnPlane(plane, tool.name, parsed.data);
  note.decision = verdict.decision;
  // Asked: whoever answers decides (noted on the way, or read off how the question ended).
  if (verdict.decision !== 'confirm') note.decidedBy = policyDecider(verdict, plane.mode.mode);
  if (verdict.decision === 'deny') {
    return fail(new ProtocolError('permission_denied', verdict.message));
  }
  // The person said "allow this for a while" for this tool and this AI client: not asked.
  const standing = plane.standing.match(verdict, {
    tool: tool.name,
    args: parsed.data,
    clientKey: aiClientRef(principal.tokenId, principal.tokenName, ctx.session.clientName()).key,
  });
  if (standing !== undefined) {
    note.decision = 'standing';
    note.standing = `allowed by ${describeStanding(standing)}`;
    // Given by a person beforehand: the audit names the permission and, by id, who gave it.
    note.decidedBy = { name: describeStanding(standing), personId: standing.grantedBy.id };
  }
  try {
    const reply = await tool.handle(parsed.data, {
      ...ctx,
      plane,
      decision: standing === undefined ? verdict.decision : 'allow',
      ...(standing === undefined ? {} : { standingId: standing.id }),
      note,
      audit: services.audit,
    });
    // The seed's loose objects: keys we do not know were accepted; say they had no effect.
    const ignored = ignoredArgs(tool.definition.looseObjects, toolArgs);
    const structured = ignored.length > 0 ? { ...reply.structured, ignored } : reply.structured;
    const checked = tool.definition.result.safeParse(structured);
    if (!checked.success) {
      throw new ProtocolError(
        'system_error',
        `The ${tool.name} result did not match its schema (${formatZodIssues(checked.error)}); this is a bug in the bridge or viewer.`,
      );
    }
    const summarize = tool.definition.summarize as (args: unknown, result: unknown) => string;
    const text = reply.text ?? summarize(parsed.data, checked.data);
    return finish(successResult(checked.data, text, reply.content));
  } catch (err) {
    const error = asProtocolError(err);
    if (error.kind === 'system_error') logFailure(services.logger, tool.name, error, err);
    return fail(error);
  }
}

/**
 * One line at warn per failed call (kind, tool, message): a fault that fails every call (a full
 * disk) must not flood the log with stack traces. The stack is kept at debug.
 */
function logFailure(logger: Logger, tool: ToolName, error: ProtocolError, err: unknown): void {
  logger.warn({ kind: error.kind, tool, message: error.message }, 'tool call failed');
  if (logger.isLevelEnabled('debug'))
    logger.debug(
      { tool, stack: err instanceof Error ? err.stack : String(err) },
      'tool call failed (stack)',
    );
}

/** The optional `desktop` argument and the tool's own arguments without it. */
function splitDesktopArg(
  tool: ToolName,
  rawArgs: unknown,
): { desktop: string | undefined | ProtocolError; args: unknown } {
  if (typeof rawArgs !== 'object' || rawArgs === null) return { desktop: undefined, args: rawArgs };
  if (tool === 'select_desktop') {
    // Its own argument names the desktop it selects (its schema checks the rest).
    const wanted = (rawArgs as { desktop?: unknown }).desktop;
    return { desktop: typeof wanted === 'string' ? wanted : undefined, args: rawArgs };
  }
  if (!Object.hasOwn(rawArgs, 'desktop')) return { desktop: undefined, args: rawArgs };
  const { desktop, ...rest } = rawArgs as Record<string, unknown>;
  if (typeof desktop !== 'string' || desktop.length === 0 || desktop.length > 200) {
    return {
      desktop: new ProtocolError(
        'invalid_parameters',
        'desktop: expected a desktop id or name (a string from list_desktops).',
      ),
      args: rest,
    };
  }
  return { desktop, args: rest };
}

/** The image of a screenshot result, for the audit log (only when the person keeps them). */
function imageOf(content: ContentBlock[] | undefined): { mimeType: string; data: Buffer } | null {
  const image = content?.find((block) => block.type === 'image');
  if (image === undefined || image.type !== 'image') return null;
  return { mimeType: image.mimeType, data: Buffer.from(image.data, 'base64') };
}
