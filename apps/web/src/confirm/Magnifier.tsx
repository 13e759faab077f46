// The approval panel's magnified view of what will be clicked: the desktop's own pixels around
// the point, read from the Guacamole display's canvases (never from the page), so nothing an
// AI drew on the overlay layer can hide what is really there. Refreshed a few times a second
// while the question is open; a crosshair marks the exact pixel. PreviewMagnifier shows the still
// square an approval carries (ApprovalPreview) where its desktop is not shown, in the same frame.
import { useEffect, useRef } from 'react';
import { APPROVAL_PREVIEW_SPAN, type ApprovalPreview } from '@overlay-companion/protocol';
import { getActiveClient } from '../display/activeClient.js';
import './magnifier.css';

/** Desktop pixels shown across (and down); drawn MAGNIFY times larger. */
export const MAGNIFIER_SPAN = APPROVAL_PREVIEW_SPAN;
const MAGNIFY = 5;
const REFRESH_MS = 250;

export function Magnifier({ x, y, label }: { x: number; y: number; label: string }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = canvasRef.current;
    const context = canvas?.getContext('2d');
    if (!canvas || !context) return undefined;
    const half = Math.floor(MAGNIFIER_SPAN / 2);
    const draw = () => {
      const display = getActiveClient()?.getDisplay();
      context.imageSmoothingEnabled = false;
      context.fillStyle = '#000';
      context.fillRect(0, 0, canvas.width, canvas.height);
      if (display === undefined) return;
      // The default layer is the desktop's own picture (the pointer is a separate layer).
      const source = display.getDefaultLayer().getCanvas();
      // Before the desktop's first frame its canvas is 0×0, which drawImage throws on (and a
      // throw here would take the whole page down with the question still open): stay black.
      if (source.width === 0 || source.height === 0) return;
      context.drawImage(
        source,
        x - half,
        y - half,
        MAGNIFIER_SPAN,
        MAGNIFIER_SPAN,
        0,
        0,
        MAGNIFIER_SPAN * MAGNIFY,
        MAGNIFIER_SPAN * MAGNIFY,
      );
    };
    draw();
    const timer = setInterval(draw, REFRESH_MS);
    return () => clearInterval(timer);
  }, [x, y]);
  return (
    <MagnifierFrame label={label}>
      <canvas
        ref={canvasRef}
        width={MAGNIFIER_SPAN * MAGNIFY}
        height={MAGNIFIER_SPAN * MAGNIFY}
        data-testid="confirm-magnifier"
        data-x={x}
        data-y={y}
        data-magnify={MAGNIFY}
        data-span={MAGNIFIER_SPAN}
      />
    </MagnifierFrame>
  );
}

/**
 * An approval's square of desktop pixels as its control window read it (ApprovalPreview), for
 * where the desktop is not shown: the fleet page and the person's other viewers. A still picture
 * of the moment the approval was listed, magnified like the live one.
 */
export function PreviewMagnifier({ preview, label }: { preview: ApprovalPreview; label: string }) {
  return (
    <MagnifierFrame label={label}>
      <img
        className="magnifier__still"
        src={`data:image/png;base64,${preview.png}`}
        width={MAGNIFIER_SPAN * MAGNIFY}
        height={MAGNIFIER_SPAN * MAGNIFY}
        alt=""
        data-testid="approval-preview"
        data-x={preview.x}
        data-y={preview.y}
        data-magnify={MAGNIFY}
        data-span={MAGNIFIER_SPAN}
      />
    </MagnifierFrame>
  );
}

/** The frame both magnifiers share: the picture, the crosshair's pixel, the caption. */
function MagnifierFrame({ label, children }: { label: string; children: React.ReactNode }) {
  const size = MAGNIFIER_SPAN * MAGNIFY;
  const centre = Math.floor(MAGNIFIER_SPAN / 2) * MAGNIFY;
  return (
    <figure className="magnifier">
      <div className="magnifier__frame" style={{ width: size, height: size }}>
        {children}
        <div
          className="magnifier__pixel"
          style={{ left: centre, top: centre, width: MAGNIFY, height: MAGNIFY }}
        />
      </div>
      <figcaption>{label}: the desktop itself, 5× (overlays never show here)</figcaption>
    </figure>
  );
}
