// The audit log as the API shows it (/api/audit, /api/audit/export): what happened, when, who
// (person, token, MCP client), what the policy decided, who approved, the outcome.
import { z } from 'zod';
import { EpochMs } from '../common.js';

export const AUDIT_KINDS = [
  'tool_call',
  'mode_change',
  'approval',
  /**
   * The person's answer to the AI's request_annotation (teach mode): what they pointed out —
   * rectangles and points, notes redacted unless they keep typed text — or that they cancelled or
   * did not answer in time (outcome answered / declined / no_answer, as an approval's).
   */
  'teach_answer',
  'stop',
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'password_changed',
  'token_created',
  'token_revoked',
  'person_added',
  'person_changed',
  'person_removed',
  'permissions_changed',
  'settings_changed',
  'layout_changed',
  'desktop_created',
  'desktop_changed',
  'desktop_removed',
  'desktop_grant_changed',
  'standing_permission',
  /** A file sent to or fetched from a desktop (files/transferAudit.ts in the bridge). */
  'file_transfer',
  /** A recording watched (its picture streamed to a player), exported, or deleted (by a person, or by retention). */
  'recording_viewed',
  'recording_exported',
  'recording_deleted',
  /** Written when the audit can be stored again: from when to when it could not, and how much waited. */
  'audit_outage',
] as const;
export const AuditKind = z.enum(AUDIT_KINDS);
export type AuditKind = z.infer<typeof AuditKind>;

/**
 * What decided a tool call: allowed by the mode, allowed by a standing permission (which one is
 * on the entry's detail line), asked the person (approved_by and the outcome say how it ended),
 * or denied by the policy.
 */
export const AUDIT_DECISIONS = ['allow', 'standing', 'confirm', 'deny'] as const;
export const AuditDecision = z.enum(AUDIT_DECISIONS);
export type AuditDecision = z.infer<typeof AuditDecision>;

/** Who acted: the AI (through a token), the person, or the bridge itself. */
export const AuditActor = z.enum(['ai', 'person', 'system']);

export const AuditEntryView = z.object({
  id: z.int().min(1),
  at: EpochMs,
  kind: AuditKind,
  actor: AuditActor,
  person_id: z.string().nullable(),
  /** The person's display name when the entry was written (people can be removed later). */
  person_name: z.string().nullable(),
  token_name: z.string().nullable(),
  client_name: z.string().nullable(),
  tool: z.string().nullable(),
  /** The arguments, summarized; typed text and clipboard contents redacted unless opted in. */
  summary: z.string().nullable(),
  decision: AuditDecision.nullable(),
  approved_by: z.string().nullable(),
  /**
   * Who or what decided a tool call: a person's display name (their answer, their Stop, their
   * standing permission, named), or the rule in words ("the mode autopilot", "no answer within
   * 30 s"); null for other entries and calls that failed before a decision.
   */
  decided_by: z.string().nullable(),
  /** The person who decided, when a person did. */
  decided_by_person_id: z.string().nullable(),
  /** ok, or the error kind (permission_denied, timeout, …). */
  outcome: z.string().nullable(),
  duration_ms: z.int().min(0).nullable(),
  detail: z.string().nullable(),
  has_screenshot: z.boolean(),
});
export type AuditEntryView = z.infer<typeof AuditEntryView>;

const MAX_PAGE = 500;

/** Query string of GET /api/audit and /api/audit/export (all optional). */
export const AuditQuery = z.strictObject({
  /** Admins only; everyone else always sees their own entries. */
  person_id: z.string().max(64).optional(),
  kind: AuditKind.optional(),
  tool: z.string().max(64).optional(),
  outcome: z.string().max(64).optional(),
  from: z.coerce.number().int().min(0).optional(),
  to: z.coerce.number().int().min(0).optional(),
  /** Paging: entries with an id below this (the previous page's next_before). */
  before: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(50),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

export const AuditPage = z.object({
  entries: z.array(AuditEntryView),
  /** Pass as `before` for the next (older) page; null when this was the last. */
  next_before: z.int().min(1).nullable(),
});
export type AuditPage = z.infer<typeof AuditPage>;
