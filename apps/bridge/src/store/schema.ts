// The database's tables as kysely sees them: one schema type for both backends (SQLite and
// PostgreSQL). Row shapes here are the store's private business; the rest of the bridge sees
// the records in types.ts. Conventions that make one schema work on both dialects:
// - times are bigint epoch milliseconds (pg's int8 is parsed to a JS number for our pool only);
// - booleans are integers 0/1 (SQLite has no boolean type; pg `boolean` would need a second
//   representation), converted at the repository edge by toFlag/fromFlag;
// - JSON is text we stringify and parse ourselves (no jsonb/json1 differences).
import type { ColumnType, Generated } from 'kysely';
import type { PersonSettingName } from '@overlay-companion/protocol';

/** 0 or 1: how a boolean is stored (see the header). */
export type Flag = number;

export const toFlag = (value: boolean): Flag => (value ? 1 : 0);
export const fromFlag = (value: Flag): boolean => value !== 0;

export interface PeopleTable {
  id: string;
  /** Lower-cased before every write and lookup; unique. */
  username: string;
  display_name: string;
  password_hash: string | null;
  role: string;
  disabled: Flag;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebSessionsTable {
  id_hash: string;
  person_id: string;
  csrf_token: string;
  method: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  source: string | null;
}

export interface ApiTokensTable {
  id: string;
  person_id: string;
  name: string;
  token_hash: string;
  hint: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  /** JSON text: the desktop ids the token may use; null for all its person may use. */
  desktop_ids: string | null;
}

/**
 * One row per person who changed a toggle. Each toggle column holds the person's explicit
 * choice (0/1) or null for "never chosen, use PERMISSION_DEFAULTS", so a patch is one atomic
 * upsert of just the named columns and a later default change reaches everyone who never chose.
 */
export type PermissionsTable = { person_id: string; updated_at: number } & {
  [name in PersonSettingName]: Flag | null;
};

export interface SettingsTable {
  key: string;
  /** JSON text. */
  value: string;
  updated_at: number;
}

export interface MonitorLayoutsTable {
  person_id: string;
  name: string;
  /** JSON text. */
  layout: string;
  updated_at: number;
}

export interface AuditLogTable {
  /** INTEGER PRIMARY KEY AUTOINCREMENT on SQLite, bigint identity on pg; never reused. */
  id: Generated<number>;
  at: number;
  kind: string;
  actor: string;
  /** No foreign key: entries outlive the person they name (see migrations/0001_initial.ts). */
  person_id: string | null;
  person_name: string | null;
  token_id: string | null;
  token_name: string | null;
  client_name: string | null;
  tool: string | null;
  summary: string | null;
  decision: string | null;
  approved_by: string | null;
  outcome: string | null;
  duration_ms: number | null;
  detail: string | null;
  /** Migration 0010: who or what decided a tool call, and the person's id when a person did. */
  decided_by: string | null;
  decided_by_person_id: string | null;
  screenshot_mime: string | null;
  /** Last column, and never selected by query(), so listing never reads image bytes. */
  screenshot: ColumnType<Buffer | null, Buffer | null, never>;
}

export interface DesktopsTable {
  id: string;
  name: string;
  /** The name lower-cased (unique): names ignore case. */
  name_key: string;
  kind: string;
  /** JSON text (DesktopParams). */
  params: string;
  /** Sealed credentials (desktops/credentials.ts). */
  secret: string | null;
  owner_id: string;
  in_charge_id: string | null;
  /** 1 when a member chose its host (see DesktopRecord.targetSetByMember). */
  target_set_by_member: Flag;
  created_at: number;
  updated_at: number;
  /** 'off' | 'on' | 'person'; null: the bridge's default (migration 0004). */
  recording: ColumnType<string | null, string | null | undefined, string | null>;
  /** The person in charge who let others transfer files; null: only they may (migration 0008). */
  transfer_others_by: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface DesktopGrantsTable {
  desktop_id: string;
  person_id: string;
  level: string;
  created_at: number;
}

export interface RecordingsTable {
  id: string;
  desktop_id: string;
  owner_id: string | null;
  started_at: number;
  ended_at: number | null;
  bytes: ColumnType<number, number | undefined, number>;
  /** JSON text: [{ from, to, reason }]. */
  gaps: ColumnType<string, string | undefined, string>;
  /** Every file of the recording, in bytes (migration 0006). */
  stored_bytes: ColumnType<number, number | undefined, number>;
  /** 'local' | 's3' (migration 0006). */
  location: ColumnType<string, string | undefined, string>;
  /** The bucket and key prefix of one on an S3 store (migration 0009); null otherwise. */
  s3_bucket: ColumnType<string | null, string | null | undefined, string | null>;
  s3_prefix: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface DesktopPolicyTable {
  desktop_id: string;
  person_id: string;
  mode: string | null;
  /** JSON text. */
  mode_metadata: string | null;
  /** JSON text. */
  standing: ColumnType<string, string | undefined, string>;
  standing_counter: ColumnType<number, number | undefined, number>;
  updated_at: number;
}

export interface Database {
  people: PeopleTable;
  web_sessions: WebSessionsTable;
  api_tokens: ApiTokensTable;
  permissions: PermissionsTable;
  settings: SettingsTable;
  monitor_layouts: MonitorLayoutsTable;
  audit_log: AuditLogTable;
  desktops: DesktopsTable;
  desktop_grants: DesktopGrantsTable;
  recordings: RecordingsTable;
  desktop_policy: DesktopPolicyTable;
}
