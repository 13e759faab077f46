// Test support: overlays whose labels JSON escapes six-fold (\u0001: six bytes encoded, one
// character before), the heaviest store per overlay the protocol allows — what the memory and
// backpressure tests fill a desktop with.
import type { Overlay } from '@overlay-companion/protocol';

export function escapedOverlays(count: number, prefix: string): Overlay[] {
  return Array.from({ length: count }, (_, i) => ({
    overlay_id: `${prefix}_${i}`,
    bounds: { x: 10, y: 20, width: 30, height: 40 },
    color: '#ffcc00',
    opacity: 0.5,
    label: '\u0001'.repeat(200),
    click_through: true,
    monitor_index: 0,
    created_at: Date.UTC(2025, 7, 24, 8, 10, 0),
  }));
}
