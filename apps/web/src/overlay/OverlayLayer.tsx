// The overlay layer: absolutely positioned exactly over the displayed remote picture, click-
// through always (pointer-events: none; each overlay's click_through flag is kept in the store
// for later), shapes placed from desktop pixels through this window's viewport. It subscribes
// only to the overlay store, the viewport and the first pending confirmation, so overlay
// changes re-render this layer alone and never the remote display.
import { memo } from 'react';
import type { Overlay } from '@overlay-companion/protocol';
import { useStore } from 'zustand';
import { overlayStore } from '../store/overlays.js';
import { viewportStore } from '../store/viewport.js';
import { confirmationStore } from '../store/confirmations.js';
import { rectToWindow, type Viewport } from '../viewport/viewport.js';
import { ConfirmPreview } from './ConfirmPreview.js';

const OverlayShape = memo(function OverlayShape({
  overlay,
  viewport,
}: {
  overlay: Overlay;
  viewport: Viewport;
}) {
  const b = overlay.bounds;
  if (b.width <= 0 || b.height <= 0) return null;
  const r = rectToWindow(viewport, b);
  return (
    <div
      className="overlay-shape"
      data-overlay-id={overlay.overlay_id}
      data-click-through={overlay.click_through ? 'true' : 'false'}
      style={{ left: r.x, top: r.y, width: r.width, height: r.height, borderColor: overlay.color }}
    >
      <div
        className="overlay-shape__fill"
        style={{ backgroundColor: overlay.color, opacity: overlay.opacity }}
      />
      {overlay.label !== undefined && overlay.label !== '' && (
        <span className="overlay-shape__label">{overlay.label}</span>
      )}
    </div>
  );
});

export function OverlayLayer() {
  const overlays = useStore(overlayStore, (s) => s.overlays);
  const viewport = useStore(viewportStore, (s) => s.viewport);
  const origin = useStore(viewportStore, (s) => s.origin);
  const preview = useStore(confirmationStore, (s) => s.pending[0]);
  return (
    <div
      className="overlay-layer"
      aria-hidden="true"
      data-testid="overlay-layer"
      style={{
        left: origin.x,
        top: origin.y,
        width: viewport.vw * viewport.scale,
        height: viewport.vh * viewport.scale,
      }}
    >
      {overlays.map((overlay) => (
        <OverlayShape key={overlay.overlay_id} overlay={overlay} viewport={viewport} />
      ))}
      {preview !== undefined && <ConfirmPreview details={preview.details} viewport={viewport} />}
    </div>
  );
}
