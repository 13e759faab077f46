// One rectangle on the editor's desktop — a monitor or a privacy mask — placed at the view's
// scale: focusable with a visible focus ring and a name that says what and where it is, moved by
// the arrow keys (Shift: 10 px; Alt: resize), dragged by its body and resized by the handles on
// its corners and edges. Its words on the picture are DesktopCanvas's labels (labelSpots.ts),
// placed so none covers another; the full name is its accessible name and its tooltip.
import { useId, type KeyboardEvent, type PointerEvent } from 'react';
import { HANDLES, type DragKind, type Rect } from './geometry.js';
import type { TargetKind } from './editorState.js';

export interface RectBoxProps {
  kind: TargetKind;
  rect: Rect;
  /** View pixels per desktop pixel. */
  scale: number;
  /** "Monitor 1 “left”". */
  name: string;
  /** Its details (sizes, scale): its description for screen readers; the picture shows them
   * when there is room (pictureLabels.ts). */
  lines: readonly string[];
  /** Drawn as a conflict (overlapping another monitor). */
  conflict?: boolean;
  /** The id of the text that explains the keys. */
  helpId: string;
  onDragStart: (kind: DragKind, event: PointerEvent<HTMLElement>) => void;
  onKeyDown: (event: KeyboardEvent<HTMLDivElement>) => void;
}

export function RectBox({
  kind,
  rect,
  scale,
  name,
  lines,
  conflict = false,
  helpId,
  onDragStart,
  onKeyDown,
}: RectBoxProps) {
  const detailsId = useId();
  const where = `${rect.width} × ${rect.height} at ${rect.x}, ${rect.y}`;
  return (
    <div
      role="button"
      tabIndex={0}
      aria-roledescription={kind === 'monitor' ? 'movable monitor' : 'movable privacy mask'}
      aria-label={`${name}: ${where}${conflict ? ', overlaps another monitor' : ''}`}
      aria-describedby={`${detailsId} ${helpId}`}
      // The picture may show a short name or none (labelSpots.ts): the full one on hover.
      title={name}
      className={[
        'layout-rect',
        `layout-rect--${kind}`,
        conflict ? 'layout-rect--conflict' : '',
      ].join(' ')}
      data-x={rect.x}
      data-y={rect.y}
      data-width={rect.width}
      data-height={rect.height}
      style={{
        left: rect.x * scale,
        top: rect.y * scale,
        width: Math.max(1, rect.width * scale),
        height: Math.max(1, rect.height * scale),
      }}
      onPointerDown={(event) => onDragStart('move', event)}
      onKeyDown={onKeyDown}
    >
      <span id={detailsId} className="visually-hidden">
        {lines.join(', ')}
      </span>
      {HANDLES.map((handle) => (
        <span
          key={handle}
          aria-hidden="true"
          className={`layout-rect__handle layout-rect__handle--${handle}`}
          data-handle={handle}
          onPointerDown={(event) => {
            event.stopPropagation();
            onDragStart(handle, event);
          }}
        />
      ))}
    </div>
  );
}
