// One desktop's standing permissions, kept by the bridge: "allow click_at for 15 minutes for
// this AI client", made only from the person's answer to a real question (mcp/standingGrant.ts
// checks that), listed to every window, ended by the person (any of their windows), by time, by
// Stop, by the charge moving to someone else, or — for "this AI session" — when the AI client
// has no session left here. The rule for when one turns an ask into an allow is the protocol's
// matchingStandingPermission; this module owns the list, the numbering (“standing permission
// N” in the audit log) and the expiry timer.
import {
  MAX_STANDING_PERMISSIONS,
  matchingStandingPermission,
  type AiClientRef,
  type CallDecision,
  type InputPolicyToolName,
  type StandingCall,
  type StandingPermission,
  type StandingPermissionsMessage,
} from '@overlay-companion/protocol';

export interface StandingRecord extends StandingPermission {
  tool: InputPolicyToolName;
  /** N in "standing permission N": counts up per desktop. */
  number: number;
  client: AiClientRef;
  grantedBy: { id: string; name: string };
  grantedAt: number;
}

/** Why a standing permission ended (for the audit log and the person's toast). */
export type StandingEnd = 'revoked' | 'expired' | 'stop' | 'charge_moved' | 'session_ended';

export interface StandingObserver {
  granted?(record: StandingRecord): void;
  ended?(record: StandingRecord, why: StandingEnd, byPersonId?: string): void;
}

export interface StandingOptions {
  /** The list changed: tell every window. */
  changed: () => void;
  observer?: StandingObserver;
  now?: () => number;
}

export interface StandingGrant {
  tool: InputPolicyToolName;
  client: AiClientRef;
  /** null: until the AI client has no session left on this desktop. */
  minutes: number | null;
  grantedBy: { id: string; name: string };
}

export class StandingPermissions {
  #list: StandingRecord[] = [];
  #counter = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #now: () => number;

  constructor(private readonly options: StandingOptions) {
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#list.length;
  }

  /** Records the person's "allow this for a while"; a new one for the same tool and client replaces the old. */
  grant(input: StandingGrant): StandingRecord {
    const now = this.#now();
    this.#counter += 1;
    const record: StandingRecord = {
      id: `standing_${this.#counter}`,
      number: this.#counter,
      tool: input.tool,
      clientKey: input.client.key,
      client: input.client,
      expiresAt: input.minutes === null ? null : now + input.minutes * 60_000,
      grantedBy: input.grantedBy,
      grantedAt: now,
    };
    const replaced = this.#list.filter(
      (p) => p.tool === input.tool && p.clientKey === input.client.key,
    );
    this.#list = [...this.#list.filter((p) => !replaced.includes(p)), record];
    // Bounded: one per tool and client in practice; the oldest goes first past the cap.
    const over = this.#list.length - MAX_STANDING_PERMISSIONS;
    const dropped = over > 0 ? this.#list.splice(0, over) : [];
    for (const old of [...replaced, ...dropped])
      this.options.observer?.ended?.(old, 'revoked', input.grantedBy.id);
    this.options.observer?.granted?.(record);
    this.#changed();
    return record;
  }

  /** The person ended one; false when there is no such permission (already ended). */
  revoke(id: string, byPersonId: string): boolean {
    return this.#end((p) => p.id === id, 'revoked', byPersonId) > 0;
  }

  /** Ends every one (Stop, the charge moved, the desktop closed). */
  endAll(why: StandingEnd, byPersonId?: string): void {
    this.#end(() => true, why, byPersonId);
  }

  /** Ends the "this AI session" ones of clients with no session left here. */
  endSessionsGone(liveClientKeys: ReadonlySet<string>): void {
    this.#end((p) => p.expiresAt === null && !liveClientKeys.has(p.clientKey), 'session_ended');
  }

  /** The permission that turns this call's ask into an allow, if any. */
  match(verdict: CallDecision, call: StandingCall): StandingRecord | undefined {
    this.#expire();
    const found = matchingStandingPermission(verdict, call, this.#list, this.#now());
    return found === undefined ? undefined : this.#list.find((p) => p.id === found.id);
  }

  /** A permission by id, while it lasts. */
  byId(id: string): StandingRecord | undefined {
    this.#expire();
    return this.#list.find((p) => p.id === id);
  }

  /** The list as every window is told it (times relative to now). */
  message(): StandingPermissionsMessage {
    const now = this.#now();
    return {
      type: 'standing_permissions',
      permissions: this.#list.map((p) => ({
        id: p.id,
        number: p.number,
        tool: p.tool,
        client: p.client,
        expires_in_ms: p.expiresAt === null ? null : Math.max(0, p.expiresAt - now),
        granted_by: p.grantedBy.name.slice(0, 200) || 'the person',
      })),
    };
  }

  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#list = [];
  }

  #expire(): void {
    const now = this.#now();
    this.#end((p) => p.expiresAt !== null && p.expiresAt <= now, 'expired');
  }

  #end(which: (p: StandingRecord) => boolean, why: StandingEnd, byPersonId?: string): number {
    const ending = this.#list.filter(which);
    if (ending.length === 0) return 0;
    this.#list = this.#list.filter((p) => !ending.includes(p));
    for (const record of ending) this.options.observer?.ended?.(record, why, byPersonId);
    this.#changed();
    return ending.length;
  }

  /** Tells the windows, and wakes up when the next one runs out (to end it and tell them). */
  #changed(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const next = Math.min(...this.#list.map((p) => p.expiresAt ?? Number.POSITIVE_INFINITY));
    if (Number.isFinite(next)) {
      this.#timer = setTimeout(() => this.#expire(), Math.max(0, next - this.#now()) + 5);
      this.#timer.unref();
    }
    this.options.changed();
  }
}
