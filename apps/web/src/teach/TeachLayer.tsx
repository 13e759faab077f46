// Teach mode's interaction layer: while the AI's request_annotation is open it covers the whole
// desktop area (a sibling above the display and the overlay layer, never inside the remote
// canvas) and takes the person's pointer and keys (useDrawing.ts), so nothing they do here
// reaches the remote desktop. Over the displayed picture it shows the area the AI asks about,
// the person's private areas (nothing can be drawn there), the items drawn so far (numbered as
// in the panel), the rectangle being dragged and the keyboard crosshair. Renders on the
// request's changes and the viewport's, never per pointer move.
import { memo, useEffect, useRef } from 'react';
import { DISPLAY_AREA_ATTRIBUTE } from '../display/guacBrowser.js';
import { useStore } from 'zustand';
import { viewportStore } from '../store/viewport.js';
import { desktopToWindow, rectToWindow, type Point, type Viewport } from '../viewport/viewport.js';
import { teachStore, type TeachItem, type TeachRequest } from './teachStore.js';
import { useDrawing } from './useDrawing.js';
import './teach.css';

export const TEACH_LAYER_HELP_ID = 'teach-layer-help';

function boxStyle(viewport: Viewport, r: { x: number; y: number; width: number; height: number }) {
  const w = rectToWindow(viewport, r);
  return { left: w.x, top: w.y, width: w.width, height: w.height };
}

/** The middle of a desktop pixel, in window pixels over the picture. */
function pixelCentre(viewport: Viewport, p: Point): Point {
  return desktopToWindow(viewport, { x: p.x + 0.5, y: p.y + 0.5 });
}

const Mark = memo(function Mark({
  item,
  n,
  viewport,
}: {
  item: TeachItem;
  n: number;
  viewport: Viewport;
}) {
  if (item.kind === 'point') {
    const c = pixelCentre(viewport, item);
    return (
      <div
        className="teach-mark teach-mark--point"
        data-teach-mark={n}
        style={{ left: c.x, top: c.y }}
      >
        <span className="teach-mark__n">{n}</span>
      </div>
    );
  }
  return (
    <div
      className="teach-mark teach-mark--rect"
      data-teach-mark={n}
      style={boxStyle(viewport, item)}
    >
      <span className="teach-mark__n">{n}</span>
    </div>
  );
});

export function TeachLayer() {
  const request = useStore(teachStore, (s) => s.request);
  if (request === null || request.outcome !== null) return null;
  return <OpenLayer request={request} />;
}

/**
 * While the layer covers the desktop, Tab skips the desktop area (whose keyboard handler would
 * send Tab to the remote desktop) and goes from the chrome straight to the layer and the panel.
 * A desktop that already has the keyboard keeps it: keys typed there are not taken mid-word.
 */
function useDesktopOutOfTabOrder(): void {
  useEffect(() => {
    const area = document.querySelector<HTMLElement>(`[${DISPLAY_AREA_ATTRIBUTE}]`);
    if (area === null) return undefined;
    const before = area.tabIndex;
    area.tabIndex = -1;
    return () => {
      area.tabIndex = before;
    };
  }, []);
}

function OpenLayer({ request }: { request: TeachRequest }) {
  useDesktopOutOfTabOrder();
  const viewport = useStore(viewportStore, (s) => s.viewport);
  const origin = useStore(viewportStore, (s) => s.origin);
  const layerRef = useRef<HTMLDivElement>(null);
  const draftRef = useRef<HTMLDivElement>(null);
  const drawing = useDrawing(layerRef, draftRef, request.area);
  const { crosshair, anchor } = drawing;
  const area = request.area;
  return (
    <div
      ref={layerRef}
      className="teach-layer"
      data-testid="teach-layer"
      role="application"
      aria-label="Drawing area over the remote desktop"
      aria-describedby={TEACH_LAYER_HELP_ID}
      tabIndex={0}
      onPointerDown={drawing.onPointerDown}
      onPointerMove={drawing.onPointerMove}
      onPointerUp={drawing.onPointerUp}
      onPointerCancel={drawing.onPointerCancel}
      onKeyDown={drawing.onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      <div
        className="teach-layer__picture"
        style={{
          left: origin.x,
          top: origin.y,
          width: viewport.vw * viewport.scale,
          height: viewport.vh * viewport.scale,
        }}
      >
        {area !== null && (
          <div className="teach-area" data-testid="teach-area" style={boxStyle(viewport, area)} />
        )}
        {request.masks.map((mask, i) => (
          <div key={i} className="teach-private" style={boxStyle(viewport, mask)} />
        ))}
        {request.items.map((item, i) => (
          <Mark key={item.key} item={item} n={i + 1} viewport={viewport} />
        ))}
        <div ref={draftRef} className="teach-draft" data-testid="teach-draft" hidden />
        {anchor !== null && crosshair !== null && (
          <div
            className="teach-draft"
            style={boxStyle(viewport, {
              x: Math.min(anchor.x, crosshair.x),
              y: Math.min(anchor.y, crosshair.y),
              width: Math.abs(anchor.x - crosshair.x) + 1,
              height: Math.abs(anchor.y - crosshair.y) + 1,
            })}
          />
        )}
        {crosshair !== null && (
          <div
            className="teach-crosshair"
            data-testid="teach-crosshair"
            style={{
              left: pixelCentre(viewport, crosshair).x,
              top: pixelCentre(viewport, crosshair).y,
            }}
          />
        )}
      </div>
      <p id={TEACH_LAYER_HELP_ID} className="visually-hidden">
        Drag to draw a rectangle, click to place a point; nothing you do here reaches the desktop.
        With the keyboard: the arrow keys move a crosshair (10 pixels; with Shift 100, with Ctrl 1),
        Enter places a point, R starts and ends a rectangle, Escape cancels.
      </p>
      <div className="visually-hidden" aria-live="polite" data-testid="teach-crosshair-text">
        {crosshair === null
          ? ''
          : `Crosshair at ${crosshair.x}, ${crosshair.y}${anchor === null ? '' : `; rectangle from ${anchor.x}, ${anchor.y}`}`}
      </div>
    </div>
  );
}
