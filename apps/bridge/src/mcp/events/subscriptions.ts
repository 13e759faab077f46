// One MCP session's event subscriptions: which UI events each keeps (types, region/keys filter,
// per-type debounce), a bounded buffer per subscription that counts what it had to drop, and
// draining for get_events. Notifying the client (resources/updated) is the caller's job through
// `onAccepted`, and so is telling viewers which types are wanted (`onTypesChanged`, `types()`),
// so this stays a plain data structure that tests can drive directly.
import { randomBytes } from 'node:crypto';
import type { EventType, Rect, UiEvent } from '@overlay-companion/protocol';

/** Events kept per subscription before the oldest are dropped (and counted in `dropped`). */
export const MAX_BUFFERED_EVENTS = 1000;
/** Subscriptions one session may hold; a client looping on subscribe_events hits a clear error. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 32;

export interface SubscriptionSpec {
  events: EventType[];
  debounce_ms: number;
  filter?: { region?: Rect | undefined; keys?: string[] | undefined } | undefined;
}

interface Subscription {
  id: string;
  types: ReadonlySet<EventType>;
  debounceMs: number;
  region: Rect | undefined;
  keys: ReadonlySet<string> | undefined;
  buffer: UiEvent[];
  dropped: number;
  /** `at` of the last event kept per type, for debouncing. */
  lastKeptAt: Map<EventType, number>;
}

export class EventSubscriptions {
  private readonly subs = new Map<string, Subscription>();

  constructor(
    private readonly onAccepted: (subscriptionId: string) => void = () => undefined,
    private readonly maxBuffered = MAX_BUFFERED_EVENTS,
    /** Called after any subscription is added or removed (the wanted types may have changed). */
    private readonly onTypesChanged: () => void = () => undefined,
  ) {}

  get size(): number {
    return this.subs.size;
  }

  has(id: string): boolean {
    return this.subs.has(id);
  }

  ids(): string[] {
    return [...this.subs.keys()];
  }

  /** Every event type some subscription here collects. */
  types(): Set<EventType> {
    const all = new Set<EventType>();
    for (const sub of this.subs.values()) for (const type of sub.types) all.add(type);
    return all;
  }

  /** Returns the new id, or undefined when the session already holds too many. */
  subscribe(spec: SubscriptionSpec): string | undefined {
    if (this.subs.size >= MAX_SUBSCRIPTIONS_PER_SESSION) return undefined;
    const id = `sub_${randomBytes(9).toString('base64url')}`;
    this.subs.set(id, {
      id,
      types: new Set(spec.events),
      debounceMs: spec.debounce_ms,
      region: spec.filter?.region,
      keys: spec.filter?.keys === undefined ? undefined : new Set(spec.filter.keys),
      buffer: [],
      dropped: 0,
      lastKeptAt: new Map(),
    });
    this.onTypesChanged();
    return id;
  }

  unsubscribe(id: string): boolean {
    const removed = this.subs.delete(id);
    if (removed) this.onTypesChanged();
    return removed;
  }

  /** Offers one event from a viewer to every subscription. */
  push(event: UiEvent): void {
    for (const sub of this.subs.values()) {
      if (!matches(sub, event)) continue;
      const last = sub.lastKeptAt.get(event.type);
      if (last !== undefined && sub.debounceMs > 0 && Math.abs(event.at - last) < sub.debounceMs) {
        continue;
      }
      sub.lastKeptAt.set(event.type, event.at);
      if (sub.buffer.length >= this.maxBuffered) {
        // Keep the newest: the AI cares about what the person is doing now.
        sub.buffer.shift();
        sub.dropped += 1;
      }
      sub.buffer.push(event);
      this.onAccepted(sub.id);
    }
  }

  /** Buffered events without removing them (resources/read on events://<id>). */
  peek(id: string): { events: UiEvent[]; dropped: number } | undefined {
    const sub = this.subs.get(id);
    return sub === undefined ? undefined : { events: [...sub.buffer], dropped: sub.dropped };
  }

  /**
   * Removes and returns up to `max` events, oldest first, from one subscription or (id
   * undefined) from all of them merged by time. `dropped` is reset for what was read.
   * Undefined when `id` is unknown.
   */
  drain(id: string | undefined, max: number): { events: UiEvent[]; dropped: number } | undefined {
    const sources = id === undefined ? [...this.subs.values()] : [this.subs.get(id)];
    if (sources.some((s) => s === undefined)) return undefined;
    const subs = sources as Subscription[];
    const events: UiEvent[] = [];
    let dropped = 0;
    for (const sub of subs) {
      dropped += sub.dropped;
      sub.dropped = 0;
    }
    // Merge by time: repeatedly take the oldest head. Subscriptions are few, so this is cheap.
    while (events.length < max) {
      let oldest: Subscription | undefined;
      for (const sub of subs) {
        const head = sub.buffer[0];
        if (head !== undefined && (oldest === undefined || head.at < (oldest.buffer[0]?.at ?? 0))) {
          oldest = sub;
        }
      }
      const next = oldest?.buffer.shift();
      if (next === undefined) break;
      events.push(next);
    }
    return { events, dropped };
  }

  /**
   * Drops buffered events that `allowed` refuses (the person turned a reading toggle off): what
   * the AI had not read yet when the toggle went off must not be readable afterwards.
   */
  forget(allowed: (event: UiEvent) => boolean): void {
    for (const sub of this.subs.values()) sub.buffer = sub.buffer.filter(allowed);
  }

  clear(): void {
    if (this.subs.size === 0) return;
    this.subs.clear();
    this.onTypesChanged();
  }
}

function matches(sub: Subscription, event: UiEvent): boolean {
  if (!sub.types.has(event.type)) return false;
  switch (event.type) {
    case 'mouse_move':
    case 'mouse_click':
      return sub.region === undefined || contains(sub.region, event.data.x, event.data.y);
    case 'screen_change':
      return sub.region === undefined || intersects(sub.region, event.data.region);
    case 'key_press':
      return sub.keys === undefined || sub.keys.has(event.data.key);
    case 'window_focus':
      return true;
    default: {
      const unknownEvent: never = event;
      void unknownEvent;
      return false;
    }
  }
}

function contains(r: Rect, x: number, y: number): boolean {
  return x >= r.x && y >= r.y && x < r.x + r.width && y < r.y + r.height;
}

function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
