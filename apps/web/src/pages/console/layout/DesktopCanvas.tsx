// The editor's picture of the desktop, scaled to fit the page: the current desktop's extent, the
// extent the layout asks for, one rectangle per monitor and the hatched privacy masks. Pointer
// drags move and resize them (snapping to the desktop's edges and to the other rectangles within
// snapThreshold), a drag on the desktop draws a mask while drawing is on, and the arrow keys move
// the focused rectangle. Pointer moves arrive at most once a frame (the browser coalesces them),
// so each one is an editor event; the picture's world and scale are held still while a drag lasts
// and follow the layout after the drop.
import { layoutBounds } from '@overlay-companion/protocol';
import {
  useEffect,
  useId,
  useRef,
  useState,
  type Dispatch,
  type KeyboardEvent,
  type PointerEvent,
  type RefObject,
} from 'react';
import { RectBox } from './RectBox.js';
import { maskLines, monitorLines, pictureLabels } from './pictureLabels.js';
import type { EditorEvent, EditorState, Target } from './editorState.js';
import { targetName } from './editorState.js';
import {
  MIN_RECT_PX,
  drawnRect,
  editorWorld,
  growRect,
  moveRect,
  nudgeRect,
  overlappingPairs,
  resizeRect,
  snapTargets,
  snapThreshold,
  type DragKind,
  type Extent,
  type Rect,
} from './geometry.js';

/** The picture: the part of the desktop plane it shows, and screen pixels per desktop pixel. */
interface View {
  world: Extent;
  scale: number;
}

interface Drag {
  pointerId: number;
  startX: number;
  startY: number;
  view: View;
  /** A rectangle being moved or resized, or a new mask being drawn. */
  what:
    | { type: 'edit'; target: Target; kind: DragKind; start: Rect; aspect: number | undefined }
    | { type: 'draw'; from: { x: number; y: number } };
}

export interface DesktopCanvasProps {
  state: EditorState;
  dispatch: Dispatch<EditorEvent>;
  /** The remote desktop's size now, when known. */
  desktop: Extent | null;
  drawing: boolean;
  /** Said to screen readers after a keyboard move ("Monitor 2: 1920 × 1080 at 10, 0"). */
  onAnnounce: (text: string) => void;
}

/** The view's largest height: most of the window, but never so little it cannot be used. */
function heightBudget(): number {
  return Math.max(220, Math.round(window.innerHeight * 0.62));
}

function useWidth(element: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const node = element.current;
    if (node === null) return undefined;
    // Observing reports the first size at once, then every change.
    const observer = new ResizeObserver(() => setWidth(node.clientWidth));
    observer.observe(node);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

export function DesktopCanvas({
  state,
  dispatch,
  desktop,
  drawing,
  onAnnounce,
}: DesktopCanvasProps) {
  const frame = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLDivElement>(null);
  const drag = useRef<Drag | null>(null);
  const [draft, setDraft] = useState<Rect | null>(null);
  /**
   * The picture while a drag lasts. Redrawn at another scale under the pointer (the layout grows
   * as a monitor moves out, a scrollbar comes and goes), the rectangle would slide away from the
   * pointer and the snapping distance change mid-drag.
   */
  const [heldView, setHeldView] = useState<View | null>(null);
  const helpId = useId();
  const available = useWidth(frame);

  const bounds = layoutBounds(state);
  const liveWorld = editorWorld(desktop, bounds, state.monitors);
  const liveScale =
    available > 0 ? Math.min(available / liveWorld.width, heightBudget() / liveWorld.height) : 0;
  const { world, scale } = heldView ?? { world: liveWorld, scale: liveScale };
  const conflicts = new Set(overlappingPairs(state.monitors).flat());

  const targetsFor = (target: Target | null) => {
    const monitors = state.monitors.filter(
      (_, i) => !(target?.kind === 'monitor' && target.index === i),
    );
    const masks =
      target?.kind === 'monitor'
        ? []
        : state.masks.filter((_, i) => !(target?.kind === 'mask' && target.index === i));
    return snapTargets(desktop, [...monitors, ...masks]);
  };

  const toDesktop = (event: PointerEvent<HTMLElement>) => {
    const box = canvas.current?.getBoundingClientRect();
    if (box === undefined || scale === 0) return { x: 0, y: 0 };
    return {
      x: Math.min(world.width, Math.max(0, (event.clientX - box.left) / scale)),
      y: Math.min(world.height, Math.max(0, (event.clientY - box.top) / scale)),
    };
  };

  const begin = (event: PointerEvent<HTMLElement>, what: Drag['what']) => {
    if (event.button !== 0 || scale === 0) return;
    canvas.current?.setPointerCapture(event.pointerId);
    drag.current = {
      pointerId: event.pointerId,
      startX: event.clientX,
      startY: event.clientY,
      view: { world, scale },
      what,
    };
    setHeldView({ world, scale });
  };

  const startEdit = (target: Target, kind: DragKind, event: PointerEvent<HTMLElement>) => {
    const item =
      target.kind === 'monitor' ? state.monitors[target.index] : state.masks[target.index];
    if (item === undefined) return;
    const screen = target.kind === 'monitor' ? state.monitors[target.index]?.screen : null;
    begin(event, {
      type: 'edit',
      target,
      kind,
      start: { x: item.x, y: item.y, width: item.width, height: item.height },
      aspect: screen ? screen.width / screen.height : undefined,
    });
  };

  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const current = drag.current;
    if (current === null || current.pointerId !== event.pointerId) return;
    const { world: heldWorld, scale: heldScale } = current.view;
    const threshold = snapThreshold(heldScale);
    if (current.what.type === 'draw') {
      setDraft(
        drawnRect(current.what.from, toDesktop(event), {
          world: heldWorld,
          targets: targetsFor(null),
          threshold,
        }),
      );
      return;
    }
    const { target, kind, start, aspect } = current.what;
    const dx = (event.clientX - current.startX) / heldScale;
    const dy = (event.clientY - current.startY) / heldScale;
    const options = { world: heldWorld, targets: targetsFor(target), threshold, aspect };
    const rect =
      kind === 'move' ? moveRect(start, dx, dy, options) : resizeRect(start, kind, dx, dy, options);
    dispatch({ type: 'rectChanged', target, rect });
  };

  const onPointerEnd = (event: PointerEvent<HTMLDivElement>) => {
    const current = drag.current;
    if (current === null || current.pointerId !== event.pointerId) return;
    drag.current = null;
    setHeldView(null);
    if (current.what.type === 'draw') {
      const rect = draft;
      setDraft(null);
      if (rect !== null && rect.width >= MIN_RECT_PX && rect.height >= MIN_RECT_PX) {
        dispatch({ type: 'maskAdded', rect });
        onAnnounce(
          `Mask ${state.masks.length + 1} drawn: ${rect.width} × ${rect.height} at ${rect.x}, ${rect.y}.`,
        );
      }
    }
  };

  const onKeyDown = (target: Target, event: KeyboardEvent<HTMLDivElement>) => {
    const item =
      target.kind === 'monitor' ? state.monitors[target.index] : state.masks[target.index];
    if (item === undefined) return;
    if (target.kind === 'mask' && (event.key === 'Delete' || event.key === 'Backspace')) {
      event.preventDefault();
      dispatch({ type: 'maskRemoved', index: target.index });
      onAnnounce(`${targetName('mask', target.index, item.label)} removed.`);
      return;
    }
    const step = event.shiftKey ? 10 : 1;
    const delta: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    };
    const move = delta[event.key];
    if (move === undefined) return;
    event.preventDefault();
    const screen = target.kind === 'monitor' ? state.monitors[target.index]?.screen : null;
    const rect = event.altKey
      ? growRect(
          item,
          move[0],
          move[1],
          liveWorld,
          screen ? screen.width / screen.height : undefined,
        )
      : nudgeRect(item, move[0], move[1], liveWorld);
    dispatch({ type: 'rectChanged', target, rect });
    onAnnounce(
      `${targetName(target.kind, target.index, item.label)}: ${rect.width} × ${rect.height} at ${rect.x}, ${rect.y}.`,
    );
  };

  const px = (value: number) => Math.round(value * scale);
  const showBounds =
    desktop === null || bounds.width !== desktop.width || bounds.height !== desktop.height;
  const labels = pictureLabels({
    state,
    desktop,
    bounds: showBounds && state.monitors.length > 0 ? bounds : null,
    scale,
    area: { width: px(world.width), height: px(world.height) },
  });

  return (
    <div ref={frame} className="layout-canvas-frame">
      <p id={helpId} className="visually-hidden">
        Drag to move, drag a corner or an edge to resize. Arrow keys move it by one pixel, with
        Shift by ten; Alt with the arrow keys resizes it.
      </p>
      <div
        ref={canvas}
        role="group"
        aria-label={`Desktop, ${world.width} × ${world.height} pixels shown at ${Math.round(scale * 1000) / 10} %`}
        className={`layout-canvas${drawing ? ' layout-canvas--drawing' : ''}`}
        data-world-width={world.width}
        data-world-height={world.height}
        data-scale={scale}
        style={{ width: px(world.width), height: px(world.height) }}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerEnd}
        onPointerCancel={onPointerEnd}
      >
        {desktop !== null ? (
          <div
            className="layout-extent layout-extent--desktop"
            style={{ width: px(desktop.width), height: px(desktop.height) }}
          />
        ) : null}
        {showBounds && state.monitors.length > 0 ? (
          <div
            className="layout-extent layout-extent--bounds"
            style={{ width: px(bounds.width), height: px(bounds.height) }}
          />
        ) : null}
        {state.monitors.map((m, index) => {
          const target: Target = { kind: 'monitor', index };
          return (
            <RectBox
              key={`monitor-${index}`}
              kind="monitor"
              rect={m}
              scale={scale}
              name={targetName('monitor', index, m.label)}
              lines={monitorLines(m)}
              conflict={conflicts.has(index)}
              helpId={helpId}
              onDragStart={(kind, event) => startEdit(target, kind, event)}
              onKeyDown={(event) => onKeyDown(target, event)}
            />
          );
        })}
        {drawing ? (
          <div
            className="layout-draw-layer"
            aria-hidden="true"
            onPointerDown={(event) => begin(event, { type: 'draw', from: toDesktop(event) })}
          />
        ) : null}
        {state.masks.map((m, index) => {
          const target: Target = { kind: 'mask', index };
          return (
            <RectBox
              key={`mask-${index}`}
              kind="mask"
              rect={m}
              scale={scale}
              name={targetName('mask', index, m.label)}
              lines={maskLines(m)}
              helpId={helpId}
              onDragStart={(kind, event) => startEdit(target, kind, event)}
              onKeyDown={(event) => onKeyDown(target, event)}
            />
          );
        })}
        <div className="layout-labels" aria-hidden="true">
          {labels.map((label) => (
            <span
              key={label.key}
              className={`layout-label layout-label--${label.kind}${label.inside ? '' : ' layout-label--outside'}`}
              data-testid={label.kind === 'extent' ? 'layout-extent-label' : 'layout-label'}
              style={{ left: label.x, top: label.y, width: label.width, height: label.height }}
            >
              {label.lines.map((line) => (
                <span key={line} className="layout-label__line">
                  {line}
                </span>
              ))}
            </span>
          ))}
        </div>
        {draft !== null ? (
          <div
            className="layout-rect layout-rect--mask layout-rect--draft"
            aria-hidden="true"
            style={{
              left: px(draft.x),
              top: px(draft.y),
              width: px(draft.width),
              height: px(draft.height),
            }}
          />
        ) : null}
      </div>
    </div>
  );
}
