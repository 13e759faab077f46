// What a pending confirmation will do, drawn where it will happen: a crosshair at a click,
// scroll or move point, and the path of a drag from a ring to an arrowhead. Drawn on the
// overlay layer (click-through) so the person sees the exact spot on the desktop while
// deciding in the panel beside it. One mark per kind of preview (MARKS), never per tool.
import { byKind, type ByKind, type ConfirmDetails } from '../store/pendingConfirmations.js';
import { desktopToWindow, type Point, type Viewport } from '../viewport/viewport.js';

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

function DragPath({ from, to }: { from: Point; to: Point }) {
  return (
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
      <line x1={from.x} y1={from.y} x2={to.x} y2={to.y} className="confirm-preview__halo-line" />
      <line x1={from.x} y1={from.y} x2={to.x} y2={to.y} markerEnd="url(#confirm-arrow)" />
      <circle cx={from.x} cy={from.y} r={7} className="confirm-preview__ring" />
    </g>
  );
}

/** Window position of the centre of a desktop pixel. */
type ToWindow = (p: Point) => Point;

const NO_MARK = () => null;

/** The mark of each kind; kinds without a place on the desktop have none. */
const MARKS: ByKind<(at: ToWindow) => React.ReactNode> = {
  click: (d) => (at) => (
    <Crosshair
      {...at(d)}
      label={d.clicks === 1 ? `${d.button} click` : `${d.button} ×${d.clicks}`}
    />
  ),
  scroll: (d) => (at) => <Crosshair {...at(d)} label={`scroll ${d.direction}`} />,
  move: (d) => (at) => <Crosshair {...at(d)} label="move" />,
  drag: (d) => (at) => <DragPath from={at(d.from)} to={at(d.to)} />,
  type: () => NO_MARK,
  keys: () => NO_MARK,
  text: () => NO_MARK,
  none: () => NO_MARK,
  mode: () => NO_MARK,
  other: () => NO_MARK,
};

export function ConfirmPreview({
  details,
  viewport,
}: {
  details: ConfirmDetails;
  viewport: Viewport;
}) {
  // Desktop pixels are the top-left of a pixel; aim at its centre.
  const at: ToWindow = (p) => desktopToWindow(viewport, { x: p.x + 0.5, y: p.y + 0.5 });
  const mark = byKind(MARKS, details)(at);
  return mark === null ? null : <svg className="confirm-preview">{mark}</svg>;
}
