// The overlay layer: absolutely positioned exactly over the displayed remote picture, click-
// through always (pointer-events: none), shapes placed from desktop pixels through this
// window's viewport. Each label is a tag placed outside its box when there is room
// (labelPlacement.ts), sized with the zoom, cut with an ellipsis when long and shown whole while
// the person points at the overlay or focuses it in the menu (hoverOverlay.ts). It subscribes
// only to the overlay store, the viewport, the hovered overlay and the first pending
// confirmation, so overlay changes re-render this layer alone and never the remote display.
import { memo } from 'react';
import type { Overlay } from '@overlay-companion/protocol';
import { useStore } from 'zustand';
import { overlayStore } from '../store/overlays.js';
import { viewportStore } from '../store/viewport.js';
import { confirmationStore } from '../store/confirmations.js';
import { rectToWindow, type Viewport } from '../viewport/viewport.js';
import { ConfirmPreview } from './ConfirmPreview.js';
import { hoverStore } from './hoverOverlay.js';
import { placeLabel } from './labelPlacement.js';
import { labelFont, labelSize } from './labelText.js';

const OverlayShape = memo(function OverlayShape({
  overlay,
  viewport,
  areaWidth,
  areaHeight,
  hovered,
}: {
  overlay: Overlay;
  viewport: Viewport;
  areaWidth: number;
  areaHeight: number;
  hovered: boolean;
}) {
  const b = overlay.bounds;
  if (b.width <= 0 || b.height <= 0) return null;
  const r = rectToWindow(viewport, b);
  const text = overlay.label;
  let label: React.ReactNode = null;
  if (text !== undefined && text !== '') {
    const size = labelSize(text, viewport.scale, hovered);
    const at = placeLabel(r, size, { width: areaWidth, height: areaHeight });
    label = (
      <span
        className={`overlay-label${hovered ? ' overlay-label--whole' : ''}`}
        data-overlay-label={overlay.overlay_id}
        data-side={at.side}
        style={{
          left: at.x,
          top: at.y,
          maxWidth: hovered ? undefined : size.width,
          font: labelFont(size.fontSize),
        }}
      >
        {text}
      </span>
    );
  }
  return (
    <>
      <div
        className="overlay-shape"
        data-overlay-id={overlay.overlay_id}
        data-click-through={overlay.click_through ? 'true' : 'false'}
        style={{
          left: r.x,
          top: r.y,
          width: r.width,
          height: r.height,
          borderColor: overlay.color,
        }}
      >
        <div
          className="overlay-shape__fill"
          style={{ backgroundColor: overlay.color, opacity: overlay.opacity }}
        />
      </div>
      {label}
    </>
  );
});

export function OverlayLayer() {
  const overlays = useStore(overlayStore, (s) => s.overlays);
  const viewport = useStore(viewportStore, (s) => s.viewport);
  const origin = useStore(viewportStore, (s) => s.origin);
  const preview = useStore(confirmationStore, (s) => s.pending[0]);
  const hovered = useStore(hoverStore, (s) => s.overlayId);
  const width = viewport.vw * viewport.scale;
  const height = viewport.vh * viewport.scale;
  return (
    <div
      className="overlay-layer"
      aria-hidden="true"
      data-testid="overlay-layer"
      style={{ left: origin.x, top: origin.y, width, height }}
    >
      {overlays.map((overlay) => (
        <OverlayShape
          key={overlay.overlay_id}
          overlay={overlay}
          viewport={viewport}
          areaWidth={width}
          areaHeight={height}
          hovered={overlay.overlay_id === hovered}
        />
      ))}
      {preview !== undefined && <ConfirmPreview details={preview.details} viewport={viewport} />}
    </div>
  );
}
