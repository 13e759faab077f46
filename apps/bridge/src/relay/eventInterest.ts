// The event interest: which UI event types MCP subscriptions collect (the union over every
// session). Nothing is collected until one subscribes (privacy). This module owns the set and
// the event_interest message that tells a viewer about it; the hub decides when to send it and
// drops any `event` whose type is not in the set.
import { EVENT_TYPES, type BridgeToViewer, type EventType } from '@overlay-companion/protocol';

export class EventInterest {
  private interest: ReadonlySet<EventType> = new Set();

  /** The event types viewers are told to stream, in protocol order. */
  get types(): EventType[] {
    return EVENT_TYPES.filter((type) => this.interest.has(type));
  }

  has(type: EventType): boolean {
    return this.interest.has(type);
  }

  /** Replaces the set; true when it changed (so every viewer must be told). */
  set(types: Iterable<EventType>): boolean {
    const next = new Set(types);
    if (next.size === this.interest.size && [...next].every((t) => this.interest.has(t))) {
      return false;
    }
    this.interest = next;
    return true;
  }

  message(): BridgeToViewer {
    return { type: 'event_interest', events: this.types };
  }
}
