// Store records as the API shows them (the protocol's *View schemas): never a hash, never a
// desktop's credentials.
import type {
  AuditEntryView,
  DesktopAccess,
  DesktopView,
  PersonView,
  TokenView,
} from '@overlay-companion/protocol';
import { mayManage } from '../desktops/desktopAccess.js';
import type {
  ApiTokenRecord,
  AuditRecord,
  DesktopGrant,
  DesktopRecord,
  PersonRecord,
} from '../store/types.js';

export function personView(person: PersonRecord): PersonView {
  return {
    id: person.id,
    username: person.username,
    display_name: person.displayName,
    role: person.role,
    disabled: person.disabled,
    created_at: person.createdAt,
    has_password: person.passwordHash !== null,
    oidc_linked: person.oidcSubject !== null,
  };
}

export function tokenView(token: ApiTokenRecord): TokenView {
  return {
    id: token.id,
    name: token.name,
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    last_used_at: token.lastUsedAt,
    revoked_at: token.revokedAt,
    hint: token.hint,
    desktops: token.desktopIds,
  };
}

export function auditView(entry: AuditRecord): AuditEntryView {
  return {
    id: entry.id,
    at: entry.at,
    kind: entry.kind,
    actor: entry.actor,
    person_id: entry.personId,
    person_name: entry.personName,
    token_name: entry.tokenName,
    client_name: entry.clientName,
    tool: entry.tool,
    summary: entry.summary,
    decision: entry.decision,
    approved_by: entry.approvedBy,
    decided_by: entry.decidedBy,
    decided_by_person_id: entry.decidedByPersonId,
    outcome: entry.outcome,
    duration_ms: entry.durationMs,
    detail: entry.detail,
    has_screenshot: entry.hasScreenshot,
  };
}

/**
 * A desktop as `access` may see it: the sealed credentials only as has_password, and the grants
 * only for its owner and admins. `nameOf` names people by id (a removed one reads as such).
 */
export function desktopView(
  desktop: DesktopRecord,
  grants: readonly DesktopGrant[],
  access: DesktopAccess,
  nameOf: (personId: string) => string,
): DesktopView {
  const inCharge = desktop.inChargeId ?? desktop.ownerId;
  return {
    id: desktop.id,
    name: desktop.name,
    kind: desktop.kind,
    params: { ...desktop.params },
    has_password: desktop.secret !== null,
    owner: { id: desktop.ownerId, name: nameOf(desktop.ownerId) },
    in_charge: { id: inCharge, name: nameOf(inCharge) },
    grants: mayManage(access)
      ? grants.map((g) => ({
          person_id: g.personId,
          person_name: nameOf(g.personId),
          level: g.level,
        }))
      : [],
    access,
    created_at: desktop.createdAt,
    updated_at: desktop.updatedAt,
  };
}
