// The AI's hand, drawn on the overlay layer so the person sees every input action as it
// happens: a pointer that moves to where the AI acts, a ripple at each click and scroll, the
// path of a drag, and the text being typed shown briefly beside the pointer. Click-through,
// above the display, never inside the remote canvas. Driven imperatively from aiActivity's
// events — no React render per action or animation frame.
import { useEffect, useRef } from 'react';
import { useStore } from 'zustand';
import { onAiAction } from '../activity/aiActivity.js';
import { showControlCharacters } from '../confirm/describe.js';
import type { ConfirmDetails } from '../store/pendingConfirmations.js';
import { viewportStore } from '../store/viewport.js';
import { desktopToWindow, type Point } from '../viewport/viewport.js';
import './aiPointer.css';

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

/** Draw one action: returns nothing; all state is in the DOM under `layer`. */
export function drawAiAction(
  layer: HTMLElement,
  pointer: HTMLElement,
  bubble: HTMLElement,
  details: ConfirmDetails,
): void {
  const place = (desktop: Point) => {
    const at = toWindow(desktop);
    pointer.style.transform = `translate(${at.x}px, ${at.y}px)`;
    pointer.dataset.x = String(desktop.x);
    pointer.dataset.y = String(desktop.y);
    pointer.hidden = false;
    return at;
  };
  switch (details.kind) {
    case 'click':
      ripple(layer, place(details), details.button === 'right' ? 'right' : 'click');
      break;
    case 'scroll':
      ripple(layer, place(details), 'scroll');
      break;
    case 'move':
      place(details);
      break;
    case 'drag': {
      const from = toWindow(details.from);
      const to = toWindow(details.to);
      place(details.to);
      ripple(layer, from, 'click');
      pointer.animate(
        [
          { transform: `translate(${from.x}px, ${from.y}px)` },
          { transform: `translate(${to.x}px, ${to.y}px)` },
        ],
        { duration: DRAG_MS, easing: 'ease-in-out' },
      );
      break;
    }
    case 'type':
    case 'keys': {
      const raw = details.kind === 'type' ? details.text : details.keys;
      const shown = showControlCharacters(raw).replace(/\n/g, '');
      bubble.textContent =
        shown.length > TYPED_TEXT_MAX ? `${shown.slice(0, TYPED_TEXT_MAX)}…` : shown;
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
      break;
    }
    default:
      break;
  }
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
      <div ref={pointerRef} className="ai-pointer" data-testid="ai-pointer" hidden>
        <svg width="22" height="26" viewBox="0 0 22 26">
          <path d="M1 1 L1 21 L6.5 16 L10 24.5 L13.5 23 L10 14.8 L17.5 14.8 Z" />
        </svg>
        <span className="ai-pointer__tag">AI</span>
      </div>
      <div ref={bubbleRef} className="ai-typed" data-testid="ai-typed" hidden />
    </div>
  );
}
