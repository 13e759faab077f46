// Whether an AI follows the person's pointer right now: some MCP subscription collects an event
// type that the "follow my pointer and clicks" permission governs (mouse moves, clicks, window
// focus: the protocol's EVENT_PERMISSIONS, so a new pointer event type counts without a change
// here) and the person's permissions still let it through. Unknown interest (null, an older
// bridge) or unknown permissions are not shown as following: the notice states a fact.
import {
  EVENT_PERMISSIONS,
  EVENT_TYPES,
  type EventType,
  type Permissions,
} from '@overlay-companion/protocol';

/** The event types that tell an AI where the person's pointer is and what it clicks. */
export const POINTER_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter(
  (type) => EVENT_PERMISSIONS[type] === 'read_pointer_events',
);

export function followsPointer(
  eventInterest: readonly EventType[] | null,
  permissions: Permissions | null,
): boolean {
  if (eventInterest === null || permissions === null || !permissions.read_pointer_events)
    return false;
  return eventInterest.some((type) => POINTER_EVENT_TYPES.includes(type));
}
