// One desktop's standing permissions, kept by the bridge: "allow click_at for 15 minutes for
// this AI client", made only from the person's answer to a real question (mcp/standingGrant.ts
// checks that), listed to every window, ended by the person (any of their windows), by time, by
// Stop, by the charge moving to someone else, or — for "this AI session" — when the AI client
// has no session left here. The rule for when one turns an ask into an allow is the protocol's
// matchingStandingPermission; this module owns the list, the numbering (“standing permission
// N” in the audit log) and the expiry timer. The list outlives a restart and is shared by the
// bridges of a site: the plane writes `stored()` to the store after each grant or end, and a
// bridge reads it back with `restore()` (checked against its schema: the store is not trusted
// more than the wire).
import { z } from 'zod';
import {
  AiClientRef,
  INPUT_POLICY_TOOLS,
  MAX_STANDING_PERMISSIONS,
  matchingStandingPermission,
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

/** How the list changed: `kept` (a grant or an end, what the store keeps), `expired`, `restored`. */
export type StandingChange = 'kept' | 'expired' | 'restored';

export interface StandingOptions {
  /** The list changed: tell every window (and, when `kept`, the store). */
  changed: (how: StandingChange) => void;
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

const Id = z.string().min(1).max(200);
/** The list as the store keeps it (desktop_policy.standing). */
const StoredStanding = z
  .array(
    z.strictObject({
      id: Id,
      number: z.int().min(1),
      tool: z.enum(INPUT_POLICY_TOOLS as [InputPolicyToolName, ...InputPolicyToolName[]]),
      clientKey: z.string().min(1).max(240),
      client: AiClientRef,
      expiresAt: z.number().nullable(),
      grantedBy: z.strictObject({ id: Id, name: z.string().max(200) }),
      grantedAt: z.number(),
    }),
  )
  .max(MAX_STANDING_PERMISSIONS);

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
    this.#changed('kept');
    return record;
  }

  /** The list and the last number given, as the store keeps them. */
  stored(): { list: StandingRecord[]; counter: number } {
    return { list: [...this.#list], counter: this.#counter };
  }

  /**
   * Replaces the list with one read from the store (a restart, or another bridge of the site
   * changed it); nothing is reported ended. False when it does not parse: the list is emptied
   * (fail closed: no standing permission allows anything).
   */
  restore(stored: unknown, counter: number): boolean {
    const parsed = StoredStanding.safeParse(stored);
    const now = this.#now();
    // Those that ran out meanwhile were ended (and audited) where they were given.
    this.#list = parsed.success
      ? parsed.data.filter((p) => p.expiresAt === null || p.expiresAt > now)
      : [];
    this.#counter = Math.max(this.#counter, counter, ...this.#list.map((p) => p.number));
    this.#changed('restored');
    return parsed.success;
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
    // Every bridge ends an expired one by its own clock: only the other ends are written.
    this.#changed(why === 'expired' ? 'expired' : 'kept');
    return ending.length;
  }

  /** Tells the windows, and wakes up when the next one runs out (to end it and tell them). */
  #changed(how: StandingChange): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const next = Math.min(...this.#list.map((p) => p.expiresAt ?? Number.POSITIVE_INFINITY));
    if (Number.isFinite(next)) {
      this.#timer = setTimeout(() => this.#expire(), Math.max(0, next - this.#now()) + 5);
      this.#timer.unref();
    }
    this.options.changed(how);
  }
}
