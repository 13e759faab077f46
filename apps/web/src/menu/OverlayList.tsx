// The AI's overlays as a keyboard-reachable list in the menu: focusing (or pointing at) an item
// shows that overlay's label whole on the desktop, the way pointing at the overlay itself does.
import { useStore } from 'zustand';
import { hoverChanged } from '../overlay/hoverOverlay.js';
import { overlayStore } from '../store/overlays.js';

/** More than this many labelled overlays are summarized, not listed. */
const MAX_LISTED = 50;

export function OverlayList() {
  const overlays = useStore(overlayStore, (s) => s.overlays);
  const labelled = overlays.filter((o) => o.label !== undefined && o.label !== '');
  if (labelled.length === 0) return null;
  return (
    <section className="client-menu__section" aria-labelledby="menu-overlays">
      <h3 id="menu-overlays">Overlays the AI drew</h3>
      <ul className="client-menu__overlays" data-testid="menu-overlays">
        {labelled.slice(0, MAX_LISTED).map((o) => (
          <li key={o.overlay_id}>
            <button
              type="button"
              onFocus={() => hoverChanged(o.overlay_id)}
              onBlur={() => hoverChanged(null)}
              onMouseEnter={() => hoverChanged(o.overlay_id)}
              onMouseLeave={() => hoverChanged(null)}
            >
              {o.label}
            </button>
          </li>
        ))}
      </ul>
      {labelled.length > MAX_LISTED && (
        <p className="client-menu__note">and {labelled.length - MAX_LISTED} more</p>
      )}
    </section>
  );
}
