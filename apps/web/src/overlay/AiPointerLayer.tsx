// The AI's hand, drawn on the overlay layer so the person sees every input action as it
// happens: a pointer that moves to where the AI acts, a ripple at each click and scroll, the
// path of a drag, and the text being typed shown briefly beside the pointer. Click-through,
// above the display, never inside the remote canvas. Driven imperatively from aiActivity's
// events — no React render per action or animation frame. One drawing per kind of preview
// (DRAW), never per tool: a tool's definition says which kind it is.
import { useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { onAiAction } from '../activity/aiActivity.js';
import { showControlCharacters } from '../confirm/describe.js';
import { byKind, type ByKind, type ConfirmDetails } from '../store/pendingConfirmations.js';
import { viewportStore } from '../store/viewport.js';
import { desktopToWindow, type Point } from '../viewport/viewport.js';
import { AiPointerMark } from './AiPointerMark.js';

/** How long typed text stays beside the pointer. */
const TYPED_TEXT_MS = 2_500;
const DRAG_MS = 400;
const TYPED_TEXT_MAX = 80;

/** Window position of the centre of desktop pixel `p` in this window's viewport. */
function toWindow(p: Point): Point {
  return desktopToWindow(viewportStore.getState().viewport, { x: p.x + 0.5, y: p.y + 0.5 });
}

function ripple(layer: HTMLElement, at: Point, kind: string): void {
  const element = document.createElement('div');
  element.className = `ai-ripple ai-ripple--${kind}`;
  element.dataset.testid = 'ai-ripple';
  element.style.transform = `translate(${at.x}px, ${at.y}px)`;
  element.addEventListener('animationend', () => element.remove(), { once: true });
  layer.appendChild(element);
}

/** The layer's three elements: the ripples' parent, the pointer and the typed-text bubble. */
interface PointerParts {
  layer: HTMLElement;
  pointer: HTMLElement;
  bubble: HTMLElement;
}

/** Puts the pointer on desktop point `desktop`; returns where that is in the window. */
function place(pointer: HTMLElement, desktop: Point): Point {
  const at = toWindow(desktop);
  pointer.style.transform = `translate(${at.x}px, ${at.y}px)`;
  pointer.dataset.x = String(desktop.x);
  pointer.dataset.y = String(desktop.y);
  pointer.hidden = false;
  return at;
}

/** Shows `raw` (typed text or a key combo) briefly in the bubble beside the pointer. */
function showTyped({ pointer, bubble }: PointerParts, raw: string): void {
  const shown = showControlCharacters(raw).replace(/\n/g, '');
  bubble.textContent = shown.length > TYPED_TEXT_MAX ? `${shown.slice(0, TYPED_TEXT_MAX)}…` : shown;
  bubble.style.transform = pointer.hidden ? '' : pointer.style.transform;
  bubble.hidden = false;
  bubble.getAnimations().forEach((a) => a.cancel());
  bubble
    .animate([{ opacity: 1 }, { opacity: 1, offset: 0.8 }, { opacity: 0 }], {
      duration: TYPED_TEXT_MS,
    })
    .finished.then(
      () => {
        bubble.hidden = true;
      },
      () => undefined,
    );
}

const NOT_DRAWN = () => () => undefined;

/** How the pointer draws each kind; kinds without a place on the desktop are not drawn. */
const DRAW: ByKind<(parts: PointerParts) => void> = {
  click: (d) => (parts) =>
    ripple(parts.layer, place(parts.pointer, d), d.button === 'right' ? 'right' : 'click'),
  scroll: (d) => (parts) => ripple(parts.layer, place(parts.pointer, d), 'scroll'),
  move: (d) => (parts) => void place(parts.pointer, d),
  drag: (d) => (parts) => {
    const from = toWindow(d.from);
    const to = toWindow(d.to);
    place(parts.pointer, d.to);
    ripple(parts.layer, from, 'click');
    parts.pointer.animate(
      [
        { transform: `translate(${from.x}px, ${from.y}px)` },
        { transform: `translate(${to.x}px, ${to.y}px)` },
      ],
      { duration: DRAG_MS, easing: 'ease-in-out' },
    );
  },
  type: (d) => (parts) => showTyped(parts, d.text),
  keys: (d) => (parts) => showTyped(parts, d.keys),
  text: NOT_DRAWN,
  none: NOT_DRAWN,
  mode: NOT_DRAWN,
  other: NOT_DRAWN,
};

/** Draw one action: returns nothing; all state is in the DOM under `layer`. */
function drawAiAction(
  layer: HTMLElement,
  pointer: HTMLElement,
  bubble: HTMLElement,
  details: ConfirmDetails,
): void {
  byKind(DRAW, details)({ layer, pointer, bubble });
}

export function AiPointerLayer() {
  const layerRef = useRef<HTMLDivElement>(null);
  const pointerRef = useRef<HTMLDivElement>(null);
  const bubbleRef = useRef<HTMLDivElement>(null);
  const viewport = useStore(viewportStore, (s) => s.viewport);
  const origin = useStore(viewportStore, (s) => s.origin);

  useEffect(() => {
    const layer = layerRef.current;
    const pointer = pointerRef.current;
    const bubble = bubbleRef.current;
    if (!layer || !pointer || !bubble) return undefined;
    return onAiAction((details) => drawAiAction(layer, pointer, bubble, details));
  }, []);

  return (
    <div
      ref={layerRef}
      className="ai-pointer-layer"
      aria-hidden="true"
      data-testid="ai-pointer-layer"
      style={{
        left: origin.x,
        top: origin.y,
        width: viewport.vw * viewport.scale,
        height: viewport.vh * viewport.scale,
      }}
    >
      <AiPointerMark pointerRef={pointerRef} testId="ai-pointer" />
      <div ref={bubbleRef} className="ai-typed" data-testid="ai-typed" hidden />
    </div>
  );
}
