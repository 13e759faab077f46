// The overlay layer: absolutely positioned exactly over the displayed picture, click-through
// always (pointer-events: none), inside a box that clips it to the desktop area and keeps it
// below the viewer's own controls (overlays.css .overlay-clip). React only places the layer and
// mounts it: the boxes and their
// labels are painted by overlayPainter.ts outside React (one canvas, one animation frame per
// change, whatever the number of overlays), so an overlay change renders no component at all.
// The pending confirmation's preview (a crosshair, a drag path) is drawn here too, above them.
import { useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { viewportStore } from '../store/viewport.js';
import { confirmationStore } from '../store/pendingConfirmations.js';
import { ConfirmPreview } from './ConfirmPreview.js';
import { mountOverlayPainter } from './overlayPainter.js';
import { layerSize } from './overlayFrame.js';
import './overlays.css';

export function OverlayLayer() {
  const viewport = useStore(viewportStore, (s) => s.viewport);
  const origin = useStore(viewportStore, (s) => s.origin);
  const preview = useStore(confirmationStore, (s) => s.pending[0]);
  const layerRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const labelsRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const layer = layerRef.current;
    const canvas = canvasRef.current;
    const labels = labelsRef.current;
    if (!layer || !canvas || !labels) return undefined;
    return mountOverlayPainter({ layer, canvas, labels });
  }, []);
  const { width, height } = layerSize(viewport);
  return (
    <div className="overlay-clip" aria-hidden="true">
      <div
        ref={layerRef}
        className="overlay-layer"
        data-testid="overlay-layer"
        style={{ left: origin.x, top: origin.y, width, height }}
      >
        <canvas ref={canvasRef} className="overlay-layer__canvas" />
        <div ref={labelsRef} className="overlay-layer__labels" />
        {preview !== undefined && <ConfirmPreview details={preview.details} viewport={viewport} />}
      </div>
    </div>
  );
}
