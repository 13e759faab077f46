// The person's pointer and keys on the teach interaction layer: a drag draws a rectangle, a
// click (pointer moved less than DRAG_THRESHOLD_PX) places a point; with the keyboard, the
// arrows move a crosshair, Enter or Space places a point, R starts and ends a rectangle, Escape
// drops a half-drawn one (and otherwise cancels the request). The layer captures the pointer, so
// nothing reaches the remote desktop. The rectangle being dragged is drawn straight into its
// element from here (no React render per pointer move); only finished items reach the store.
import { useCallback, useRef, useState, type RefObject } from 'react';
import { displayStore } from '../store/index.js';
import { viewportStore } from '../store/viewport.js';
import { rectToWindow, type Point } from '../viewport/viewport.js';
import {
  areaToDesktopPixel,
  clampToShown,
  crosshairStep,
  movedCrosshair,
  pointItem,
  rectBetween,
  shownDesktop,
  type DesktopItem,
} from './geometry.js';
import { teachStore, type AskedArea } from './teachStore.js';

/** A press that moves less than this many CSS pixels is a click (a point), not a drag. */
export const DRAG_THRESHOLD_PX = 4;

interface Drag {
  pointerId: number;
  startX: number;
  startY: number;
  from: Point;
  dragging: boolean;
}

function desktop() {
  const { desktopWidth, desktopHeight } = displayStore.getState();
  return { width: desktopWidth, height: desktopHeight };
}

/** Shows `item` in the draft element (window pixels over the picture), or hides it. */
function paintDraft(element: HTMLElement | null, item: DesktopItem | null): void {
  if (element === null) return;
  if (item === null) {
    element.hidden = true;
    return;
  }
  const r = rectToWindow(viewportStore.getState().viewport, item);
  element.hidden = false;
  element.style.left = `${r.x}px`;
  element.style.top = `${r.y}px`;
  element.style.width = `${r.width}px`;
  element.style.height = `${r.height}px`;
}

export interface Drawing {
  onPointerDown: (event: React.PointerEvent<HTMLElement>) => void;
  onPointerMove: (event: React.PointerEvent<HTMLElement>) => void;
  onPointerUp: (event: React.PointerEvent<HTMLElement>) => void;
  onPointerCancel: (event: React.PointerEvent<HTMLElement>) => void;
  onKeyDown: (event: React.KeyboardEvent<HTMLElement>) => void;
  /** The keyboard crosshair (desktop pixel), once the person used the arrows. */
  crosshair: Point | null;
  /** The first corner of a rectangle being drawn with the keyboard. */
  anchor: Point | null;
}

export function useDrawing(
  layerRef: RefObject<HTMLElement | null>,
  draftRef: RefObject<HTMLElement | null>,
  area: AskedArea | null,
): Drawing {
  const drag = useRef<Drag | null>(null);
  const [crosshair, setCrosshair] = useState<Point | null>(null);
  const [anchor, setAnchor] = useState<Point | null>(null);

  const pixelAt = useCallback(
    (clientX: number, clientY: number): Point => {
      const box = layerRef.current?.getBoundingClientRect();
      const { viewport, origin } = viewportStore.getState();
      return areaToDesktopPixel(
        { x: clientX - (box?.left ?? 0), y: clientY - (box?.top ?? 0) },
        origin,
        viewport,
        desktop(),
      );
    },
    [layerRef],
  );

  const add = (item: DesktopItem) => teachStore.getState().itemAdded(item);

  const onPointerDown = (event: React.PointerEvent<HTMLElement>) => {
    // Every press is the layer's: none may fall through to the desktop below.
    event.preventDefault();
    if (!event.isPrimary || event.button !== 0 || drag.current !== null) return;
    layerRef.current?.focus({ preventScroll: true });
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = {
      pointerId: event.pointerId,
      startX: event.clientX,
      startY: event.clientY,
      from: pixelAt(event.clientX, event.clientY),
      dragging: false,
    };
  };

  const onPointerMove = (event: React.PointerEvent<HTMLElement>) => {
    const d = drag.current;
    if (d === null || d.pointerId !== event.pointerId) return;
    const far = Math.hypot(event.clientX - d.startX, event.clientY - d.startY) >= DRAG_THRESHOLD_PX;
    if (!d.dragging && !far) return;
    d.dragging = true;
    paintDraft(draftRef.current, rectBetween(d.from, pixelAt(event.clientX, event.clientY)));
  };

  const onPointerUp = (event: React.PointerEvent<HTMLElement>) => {
    const d = drag.current;
    if (d === null || d.pointerId !== event.pointerId) return;
    drag.current = null;
    paintDraft(draftRef.current, null);
    add(
      d.dragging ? rectBetween(d.from, pixelAt(event.clientX, event.clientY)) : pointItem(d.from),
    );
  };

  const onPointerCancel = (event: React.PointerEvent<HTMLElement>) => {
    if (drag.current?.pointerId !== event.pointerId) return;
    drag.current = null;
    paintDraft(draftRef.current, null);
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLElement>) => {
    const { viewport } = viewportStore.getState();
    const size = desktop();
    // Start where the AI asked, else in the middle of what this window shows.
    const shown = shownDesktop(viewport, size);
    const start =
      crosshair ??
      clampToShown(
        area === null
          ? { x: shown.x + Math.floor(shown.width / 2), y: shown.y + Math.floor(shown.height / 2) }
          : { x: area.x + Math.floor(area.width / 2), y: area.y + Math.floor(area.height / 2) },
        viewport,
        size,
      );
    const moved = movedCrosshair(start, event.key, crosshairStep(event), viewport, size);
    let handled = true;
    if (moved !== undefined) {
      setCrosshair(moved);
    } else if (event.key === 'Enter' || event.key === ' ') {
      setCrosshair(start);
      if (anchor !== null) {
        if (add(rectBetween(anchor, start))) setAnchor(null);
      } else {
        add(pointItem(start));
      }
    } else if (event.key === 'r' || event.key === 'R') {
      setCrosshair(start);
      if (anchor === null) setAnchor(start);
      else if (add(rectBetween(anchor, start))) setAnchor(null);
    } else if (event.key === 'Escape') {
      if (drag.current !== null) {
        drag.current = null;
        paintDraft(draftRef.current, null);
      } else if (anchor !== null) {
        setAnchor(null);
      } else {
        teachStore.getState().personFinished('cancel');
      }
    } else {
      handled = false;
    }
    if (handled) {
      event.preventDefault();
      // Escape here is ours: the approval panel's Escape listener must not also see it.
      event.stopPropagation();
    }
  };

  return {
    onPointerDown,
    onPointerMove,
    onPointerUp,
    onPointerCancel,
    onKeyDown,
    crosshair,
    anchor,
  };
}
