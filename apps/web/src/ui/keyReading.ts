// Whether an AI is reading the person's key presses right now: some MCP subscription collects
// `key_press` events (the bridge's event_interest). Unknown (null, an older bridge that never
// says) is not shown as reading: the banner states a fact the bridge reported.
import type { EventType } from '@overlay-companion/protocol';

export function readsKeyPresses(eventInterest: readonly EventType[] | null): boolean {
  return eventInterest !== null && eventInterest.includes('key_press');
}
