// What the desktops' planes do, written to the audit log: every mode change (who changed it —
// the person, the AI with approval, Stop — from what to what), every approval asked (answered,
// timed out, or not askable), every Stop (by whoever pressed it), every move of the charge, and
// every standing permission given and ended (and why);
// each entry names its desktop.
import type { Access } from '../auth/access.js';
import type { ModeChangeSource } from '../policy/modeState.js';
import type { PlaneObserver } from './desktopPlanes.js';
import type { StandingEnd, StandingRecord } from '../policy/standingPermissions.js';

const SOURCE_ACTOR: Readonly<Record<ModeChangeSource, 'ai' | 'person' | 'system'>> = {
  start: 'system',
  person: 'person',
  ai: 'ai',
  stop: 'person',
};

const STANDING_ENDS: Readonly<Record<StandingEnd, string>> = {
  revoked: 'revoked by the person',
  expired: 'its time ran out',
  stop: 'Stop was pressed',
  charge_moved: 'the charge of the desktop moved',
  session_ended: 'the AI client has no session left',
};

/** "standing permission 3 (click_at for Claude Code, given by Ada)": how the audit names one. */
export function describeStanding(permission: StandingRecord): string {
  return `standing permission ${permission.number} (${permission.tool} for ${permission.client.name}, given by ${permission.grantedBy.name})`;
}

export function observePlanes(access: Access): PlaneObserver {
  /** With the person's display name as it is now (these events are rare; no cache to go stale). */
  const record = (personId: string, entry: Parameters<Access['audit']['record']>[0]): void => {
    access.audit.recordNaming(entry, access.audit.displayName(personId));
  };
  return {
    modeChanged(personId, snapshot, from, source, desktopName, desktopId) {
      record(personId, {
        desktopId,
        kind: 'mode_change',
        actor: SOURCE_ACTOR[source],
        personId,
        personName: null,
        outcome: 'ok',
        detail: `${from} → ${snapshot.mode}${snapshot.metadata === undefined ? '' : ` ${JSON.stringify(snapshot.metadata).slice(0, 500)}`} (${source}) on ${desktopName}`,
      });
    },
    approval(personId, outcome, desktopName, desktopId) {
      record(personId, {
        desktopId,
        kind: 'approval',
        actor: 'person',
        personId,
        personName: null,
        decision: outcome.approved ? 'allow' : 'deny',
        outcome:
          outcome.how === 'answered' ? (outcome.approved ? 'approved' : 'declined') : outcome.how,
        detail: `mode ${outcome.from} → ${outcome.to}, asked by the ${outcome.requestedBy === 'ai' ? 'AI' : 'person'}, on ${desktopName}`,
      });
    },
    stopped(personId, desktopName, desktopId) {
      record(personId, {
        desktopId,
        kind: 'stop',
        actor: 'person',
        personId,
        personName: null,
        outcome: 'ok',
        detail: `on ${desktopName}`,
      });
    },
    standingGranted(permission, desktopName) {
      record(permission.grantedBy.id, {
        kind: 'standing_permission',
        actor: 'person',
        personId: permission.grantedBy.id,
        personName: null,
        tool: permission.tool,
        clientName: permission.client.name,
        tokenName: permission.client.token,
        outcome: 'granted',
        detail: `${describeStanding(permission)}: given, ${permission.expiresAt === null ? 'until the AI client’s sessions end' : `until ${new Date(permission.expiresAt).toISOString()}`}, on ${desktopName}`,
      });
    },
    standingEnded(permission, why, byPersonId, desktopName) {
      const personId = byPersonId ?? permission.grantedBy.id;
      record(personId, {
        kind: 'standing_permission',
        actor: why === 'expired' || why === 'session_ended' ? 'system' : 'person',
        personId,
        personName: null,
        tool: permission.tool,
        clientName: permission.client.name,
        tokenName: permission.client.token,
        outcome: 'ended',
        detail: `${describeStanding(permission)}: ended (${STANDING_ENDS[why]}), on ${desktopName}`,
      });
    },
    chargeMoved(byPersonId, from, to, desktopName, desktopId) {
      record(byPersonId, {
        desktopId,
        kind: 'desktop_changed',
        actor: 'person',
        personId: byPersonId,
        personName: null,
        outcome: 'ok',
        detail: `charge of ${desktopName}: ${from.name} → ${to.name}`,
      });
    },
  };
}
