// What a pending confirmation will do, drawn where it will happen: a crosshair at a click,
// scroll or move point, and the path of a drag from a ring to an arrowhead. Drawn on the
// overlay layer (click-through) so the person sees the exact spot on the desktop while
// deciding in the panel beside it.
import type { ConfirmDetails } from '../store/pendingConfirmations.js';
import { desktopToWindow, type Viewport } from '../viewport/viewport.js';

function Crosshair({ x, y, label }: { x: number; y: number; label: string }) {
  return (
    <g className="confirm-preview__crosshair" data-testid="confirm-crosshair" data-x={x} data-y={y}>
      <circle cx={x} cy={y} r={14} className="confirm-preview__halo" />
      <circle cx={x} cy={y} r={9} className="confirm-preview__ring" />
      <line x1={x - 22} y1={y} x2={x - 4} y2={y} />
      <line x1={x + 4} y1={y} x2={x + 22} y2={y} />
      <line x1={x} y1={y - 22} x2={x} y2={y - 4} />
      <line x1={x} y1={y + 4} x2={x} y2={y + 22} />
      <text x={x + 18} y={y - 16} className="confirm-preview__text">
        {label}
      </text>
    </g>
  );
}

export function ConfirmPreview({
  details,
  viewport,
}: {
  details: ConfirmDetails;
  viewport: Viewport;
}) {
  // Desktop pixels are the top-left of a pixel; aim at its centre.
  const at = (p: { x: number; y: number }) =>
    desktopToWindow(viewport, { x: p.x + 0.5, y: p.y + 0.5 });
  let mark: React.ReactNode = null;
  switch (details.kind) {
    case 'click': {
      const p = at(details);
      const what =
        details.clicks === 1 ? `${details.button} click` : `${details.button} ×${details.clicks}`;
      mark = <Crosshair x={p.x} y={p.y} label={what} />;
      break;
    }
    case 'scroll': {
      const p = at(details);
      mark = <Crosshair x={p.x} y={p.y} label={`scroll ${details.direction}`} />;
      break;
    }
    case 'move': {
      const p = at(details);
      mark = <Crosshair x={p.x} y={p.y} label="move" />;
      break;
    }
    case 'drag': {
      const a = at(details.from);
      const b = at(details.to);
      mark = (
        <g className="confirm-preview__drag" data-testid="confirm-drag-path">
          <defs>
            <marker
              id="confirm-arrow"
              viewBox="0 0 10 10"
              refX="8"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M0,0 L10,5 L0,10 z" className="confirm-preview__arrowhead" />
            </marker>
          </defs>
          <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} className="confirm-preview__halo-line" />
          <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} markerEnd="url(#confirm-arrow)" />
          <circle cx={a.x} cy={a.y} r={7} className="confirm-preview__ring" />
        </g>
      );
      break;
    }
    default:
      return null;
  }
  return <svg className="confirm-preview">{mark}</svg>;
}
