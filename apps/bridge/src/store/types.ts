// What the bridge keeps between restarts, as the rest of the bridge sees it: people, sign-in
// sessions, API tokens (hashed), per-person permissions, bridge-wide settings, monitor layouts,
// desktops with their grants, and the audit log. One interface, two backends behind it (SQLite
// in the data dir by default, PostgreSQL when DATABASE_URL is set), one kysely schema and one
// migration list for both.
// Times are epoch milliseconds (numbers) everywhere; ids are opaque strings minted here.
import type {
  AuditDecision,
  AuditKind,
  DesktopKind,
  DesktopParams,
  GrantLevel,
  Permissions,
  PermissionsPatch,
  Role,
} from '@overlay-companion/protocol';

export interface PersonRecord {
  id: string;
  /** Stored lower-case; unique. */
  username: string;
  displayName: string;
  /** argon2id PHC string; null for people who sign in only with OpenID Connect. */
  passwordHash: string | null;
  role: Role;
  disabled: boolean;
  oidcIssuer: string | null;
  oidcSubject: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewPerson {
  username: string;
  displayName: string;
  passwordHash: string | null;
  role: Role;
  oidcIssuer?: string | null;
  oidcSubject?: string | null;
}

export type PersonPatch = Partial<
  Pick<
    PersonRecord,
    'displayName' | 'passwordHash' | 'role' | 'disabled' | 'oidcIssuer' | 'oidcSubject'
  >
>;

export interface PeopleRepo {
  /** Throws StoreConflictError when the username (case-insensitive) is taken. */
  add(person: NewPerson): Promise<PersonRecord>;
  byId(id: string): Promise<PersonRecord | undefined>;
  /** Case-insensitive. */
  byUsername(username: string): Promise<PersonRecord | undefined>;
  byOidc(issuer: string, subject: string): Promise<PersonRecord | undefined>;
  /** Ordered by username. */
  list(): Promise<PersonRecord[]>;
  /** Undefined when there is no such person. */
  update(id: string, patch: PersonPatch): Promise<PersonRecord | undefined>;
  /** Removes the person with their sessions, tokens, permissions and layouts (not the audit). */
  remove(id: string): Promise<boolean>;
  /** Admins that are not disabled. */
  countActiveAdmins(): Promise<number>;
}

export interface WebSessionRecord {
  /** sha256 (hex) of the cookie value; the cookie value itself is never stored. */
  idHash: string;
  personId: string;
  csrfToken: string;
  method: 'password' | 'oidc';
  createdAt: number;
  lastSeenAt: number;
  /** Absolute expiry. */
  expiresAt: number;
  /** Where it signed in from (an address), for the person's own review. */
  source: string | null;
}

export interface WebSessionRepo {
  create(session: WebSessionRecord): Promise<void>;
  byIdHash(idHash: string): Promise<WebSessionRecord | undefined>;
  touch(idHash: string, lastSeenAt: number): Promise<void>;
  remove(idHash: string): Promise<boolean>;
  /** Ends every session of a person (password change, disable, removal); returns their hashes. */
  removeForPerson(personId: string, exceptIdHash?: string): Promise<string[]>;
  /**
   * Deletes sessions past their absolute expiry (expiresAt <= now) or idle since before
   * `idleBefore` (lastSeenAt < idleBefore); returns their hashes.
   */
  removeExpired(now: number, idleBefore: number): Promise<string[]>;
}

export interface ApiTokenRecord {
  /** Minted by the caller with newId('tok') (store/ids.ts). */
  id: string;
  personId: string;
  name: string;
  /** sha256 (hex) of the whole token. */
  tokenHash: string;
  /** First characters of the token, for people to tell tokens apart. */
  hint: string;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** The desktops this token may use; null: every desktop its person may use. */
  desktopIds: string[] | null;
}

export interface ApiTokenRepo {
  /** `desktopIds` defaults to null (every desktop its person may use). */
  create(
    token: Omit<ApiTokenRecord, 'lastUsedAt' | 'revokedAt' | 'desktopIds'> & {
      desktopIds?: string[] | null;
    },
  ): Promise<ApiTokenRecord>;
  byHash(tokenHash: string): Promise<ApiTokenRecord | undefined>;
  byId(id: string): Promise<ApiTokenRecord | undefined>;
  /** A person's tokens, newest first, revoked ones included. */
  listForPerson(personId: string): Promise<ApiTokenRecord[]>;
  /**
   * Sets revokedAt (once: revoking again succeeds and keeps the first time); false when there is
   * no such token of that person.
   */
  revoke(id: string, personId: string, at: number): Promise<boolean>;
  touch(id: string, lastUsedAt: number): Promise<void>;
}

export interface PermissionRepo {
  /** Defaults (PERMISSION_DEFAULTS) for a person who never changed anything. */
  get(personId: string): Promise<Permissions>;
  /** Applies the patch and returns the result. */
  update(personId: string, patch: PermissionsPatch): Promise<Permissions>;
}

export interface SettingsRepo {
  /** A bridge-wide setting's JSON value, or undefined when never set. */
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
}

export interface LayoutRecord {
  personId: string;
  name: string;
  /** The layout as JSON (validated by the API against MonitorLayout). */
  layout: unknown;
  updatedAt: number;
}

export interface LayoutRepo {
  list(personId: string): Promise<LayoutRecord[]>;
  put(record: LayoutRecord): Promise<void>;
  remove(personId: string, name: string): Promise<boolean>;
}

export interface NewAuditEntry {
  at: number;
  kind: AuditKind;
  actor: 'ai' | 'person' | 'system';
  /** Kept after the person is removed (no foreign key), so their entries still name them. */
  personId: string | null;
  personName: string | null;
  tokenId?: string | null;
  tokenName?: string | null;
  clientName?: string | null;
  tool?: string | null;
  summary?: string | null;
  decision?: AuditDecision | null;
  approvedBy?: string | null;
  /**
   * Who or what decided an AI tool call (audit/decider.ts): a person's display name, or the rule
   * in words ("the mode autopilot", "no answer within 30 s"); null when nothing was decided.
   */
  decidedBy?: string | null;
  /** The person who decided, when a person did (their answer, their Stop, their standing permission). */
  decidedByPersonId?: string | null;
  outcome?: string | null;
  durationMs?: number | null;
  detail?: string | null;
  /** PNG/JPEG/WebP bytes, only when the person chose to keep screenshots. */
  screenshot?: { mimeType: string; data: Buffer } | null;
}

export interface AuditRecord extends Required<Omit<NewAuditEntry, 'screenshot'>> {
  id: number;
  hasScreenshot: boolean;
}

export interface AuditFilter {
  personId?: string | undefined;
  kind?: AuditKind | undefined;
  tool?: string | undefined;
  outcome?: string | undefined;
  /** at >= from. */
  from?: number | undefined;
  /** at <= to. */
  to?: number | undefined;
  /** Entries with id < before (paging, newest first). */
  before?: number | undefined;
  /** Page size (at least 1; the API caps it). */
  limit: number;
}

export interface AuditRepo {
  /** One INSERT (the hot path of every tool call); returns the new id (ids are never reused). */
  append(entry: NewAuditEntry): Promise<number>;
  /** Several entries in one statement (the audit log's write-behind batches). */
  appendMany(entries: readonly NewAuditEntry[]): Promise<void>;
  /** Newest first. */
  query(filter: AuditFilter): Promise<AuditRecord[]>;
  screenshot(id: number): Promise<{ mimeType: string; data: Buffer } | undefined>;
  /** Deletes entries older than `before`; returns how many. */
  purgeBefore(before: number): Promise<number>;
}

export interface DesktopRecord {
  /** Minted by the caller with newId('dsk') (the id seals the credentials, so it comes first). */
  id: string;
  /** Unique, ignoring case. */
  name: string;
  kind: DesktopKind;
  /** Stored as JSON text. */
  params: DesktopParams;
  /** Sealed credentials (desktops/credentials.ts), or null. */
  secret: string | null;
  /** Removing the owner removes their desktops. */
  ownerId: string;
  /** Who is in charge; null = the owner (also after that person is removed). */
  inChargeId: string | null;
  /**
   * A member (not an admin) chose its host and port: the bridge keeps such a desktop off this
   * machine and link-local addresses when it connects (desktops/memberHosts.ts).
   */
  targetSetByMember: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface DesktopGrant {
  desktopId: string;
  personId: string;
  level: GrantLevel;
  createdAt: number;
}

export type DesktopPatch = Partial<
  Pick<DesktopRecord, 'name' | 'params' | 'secret' | 'ownerId' | 'inChargeId' | 'targetSetByMember'>
>;

export interface DesktopRepo {
  /** Throws StoreConflictError on a taken name (ignoring case) or an owner who is not there. */
  add(
    desktop: Omit<DesktopRecord, 'createdAt' | 'updatedAt' | 'inChargeId' | 'targetSetByMember'> & {
      targetSetByMember?: boolean;
    },
  ): Promise<DesktopRecord>;
  byId(id: string): Promise<DesktopRecord | undefined>;
  /** Ignoring case. */
  byName(name: string): Promise<DesktopRecord | undefined>;
  /** Ordered by name (ignoring case). */
  list(): Promise<DesktopRecord[]>;
  /** Only the fields the patch names (null clears secret/inChargeId); undefined when not there. */
  update(id: string, patch: DesktopPatch): Promise<DesktopRecord | undefined>;
  /** Removes the desktop and its grants. */
  remove(id: string): Promise<boolean>;
  /** Ordered by when they were given. */
  grants(desktopId: string): Promise<DesktopGrant[]>;
  grantsForPerson(personId: string): Promise<DesktopGrant[]>;
  /** Gives or changes a grant (upsert); StoreConflictError when the desktop or person is gone. */
  setGrant(desktopId: string, personId: string, level: GrantLevel): Promise<void>;
  removeGrant(desktopId: string, personId: string): Promise<boolean>;
}

/** Whether others with access may move files to and from a desktop (store/transferPolicy.ts). */
export interface TransferPolicyRepo {
  /** True only when the person in charge now turned it on (false for a desktop not there). */
  othersMay(desktopId: string): Promise<boolean>;
  /** False (nothing written) when `byPersonId` is not in charge of the desktop or it is gone. */
  set(desktopId: string, byPersonId: string, othersMay: boolean): Promise<boolean>;
}

/** A desktop's recording setting: never, always, or as the person in charge chooses. */
export type RecordingMode = 'off' | 'on' | 'person';

export interface RecordingGap {
  from: number;
  to: number;
  reason: string;
}

export interface RecordingRecord {
  /** The recording's random id (also its files' name in the recordings folder). */
  id: string;
  desktopId: string;
  /** Who owned the desktop when it was recorded. */
  ownerId: string | null;
  startedAt: number;
  /** Null while recording, or when the bridge stopped without closing it. */
  endedAt: number | null;
  /** The picture's file (`.guac`), in bytes. */
  bytes: number;
  gaps: RecordingGap[];
  /** Every file of the recording (picture, keyframes, index, events), in bytes. */
  storedBytes: number;
  /** Where its files are: the data dir's recordings folder, or the configured S3 bucket. */
  location: RecordingLocation;
  /**
   * On an S3 store: the bucket and key prefix it was moved to (migration 0009). Null while it is
   * local, and on one a bridge moved before bridges recorded them.
   */
  s3Bucket: string | null;
  s3Prefix: string | null;
}

export type RecordingLocation = 'local' | 's3';

export interface RecordingRepo {
  add(
    recording: Pick<RecordingRecord, 'id' | 'desktopId' | 'ownerId' | 'startedAt'>,
  ): Promise<void>;
  update(
    id: string,
    patch: Partial<
      Pick<
        RecordingRecord,
        'endedAt' | 'bytes' | 'gaps' | 'storedBytes' | 'location' | 's3Bucket' | 's3Prefix'
      >
    >,
  ): Promise<void>;
  byId(id: string): Promise<RecordingRecord | undefined>;
  /** Newest first. */
  list(): Promise<RecordingRecord[]>;
  remove(id: string): Promise<boolean>;
  /** The desktop's own setting; null: the bridge's default (also for an unknown desktop). */
  desktopMode(desktopId: string): Promise<RecordingMode | null>;
  /** False when there is no such desktop. */
  setDesktopMode(desktopId: string, mode: RecordingMode | null): Promise<boolean>;
}

/**
 * One desktop's AI policy as its person in charge left it (migration 0005): what every bridge of
 * a site reads, and what outlives a restart. `mode` null: never set (the bridge's --mode).
 */
export interface DesktopPolicyRecord {
  desktopId: string;
  /** Whose policy it is (the person in charge when it was written). */
  personId: string;
  mode: string | null;
  modeMetadata: Record<string, unknown> | null;
  /** Parsed JSON as written by the policy layer, which validates it when it reads it back. */
  standing: unknown;
  standingCounter: number;
  updatedAt: number;
}

export interface DesktopPolicyRepo {
  get(desktopId: string): Promise<DesktopPolicyRecord | undefined>;
  /** False when the desktop or the person is gone (nothing written). */
  setMode(
    desktopId: string,
    personId: string,
    mode: string,
    metadata: Record<string, unknown> | undefined,
  ): Promise<boolean>;
  /** False when the desktop or the person is gone (nothing written). */
  setStanding(
    desktopId: string,
    personId: string,
    standing: unknown,
    counter: number,
  ): Promise<boolean>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  readonly people: PeopleRepo;
  readonly sessions: WebSessionRepo;
  readonly tokens: ApiTokenRepo;
  readonly permissions: PermissionRepo;
  readonly settings: SettingsRepo;
  readonly layouts: LayoutRepo;
  readonly audit: AuditRepo;
  readonly desktops: DesktopRepo;
  readonly recordings: RecordingRepo;
  readonly desktopPolicy: DesktopPolicyRepo;
  readonly transferPolicy: TransferPolicyRepo;
  close(): Promise<void>;
}

/**
 * A unique constraint was hit (e.g. a username that exists), or a write named a person who is
 * not there (foreign key). The message is for the person and never quotes secrets or hashes.
 */
export class StoreConflictError extends Error {
  override name = 'StoreConflictError';
}
