// The approval panel's magnified view of what will be clicked: the desktop's own pixels around
// the point, read from the Guacamole display's canvases (never from the page), so nothing an
// AI drew on the overlay layer can hide what is really there. Refreshed a few times a second
// while the question is open; a crosshair marks the exact pixel.
import { useEffect, useRef } from 'react';
import { getActiveClient } from '../display/activeClient.js';

/** Desktop pixels shown across (and down); drawn MAGNIFY times larger. */
export const MAGNIFIER_SPAN = 33;
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
  const size = MAGNIFIER_SPAN * MAGNIFY;
  const centre = Math.floor(MAGNIFIER_SPAN / 2) * MAGNIFY;
  return (
    <figure className="magnifier">
      <div className="magnifier__frame" style={{ width: size, height: size }}>
        <canvas
          ref={canvasRef}
          width={size}
          height={size}
          data-testid="confirm-magnifier"
          data-x={x}
          data-y={y}
          data-magnify={MAGNIFY}
          data-span={MAGNIFIER_SPAN}
        />
        <div
          className="magnifier__pixel"
          style={{ left: centre, top: centre, width: MAGNIFY, height: MAGNIFY }}
        />
      </div>
      <figcaption>{label}: the desktop itself, 5× (overlays never show here)</figcaption>
    </figure>
  );
}
