// Test support: an overlay as a control window announces it (overlay_created), named `id` and
// placed at `x` — for following overlay changes from one bridge of a site to the others.
import type { Overlay } from '@overlay-companion/protocol';

export const overlay = (id: string, x: number): Overlay => ({
  overlay_id: id,
  bounds: { x, y: 20, width: 30, height: 40 },
  color: '#ffcc00',
  opacity: 0.5,
  label: id,
  click_through: true,
  monitor_index: 0,
  created_at: Date.UTC(2026, 0, 1),
});
