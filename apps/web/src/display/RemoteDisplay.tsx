// Mounts the live Guacamole display element into the page, scales it (fit, 1:1, or the crop the
// window's address asks for: vx, vy, vw, vh, scale — one window per monitor), and binds the
// person's mouse and keyboard to it. Frames are drawn by guacamole-common-js straight into its
// canvases: this component renders once and then only reacts to client and size changes. The
// desktop's size is never this window's business: the person's layout or the operator decides it.
import { useEffect, useRef } from 'react';
import type Guacamole from 'guacamole-common-js';
import { onActiveClientChange } from './activeClient.js';
import { fitViewport, type Point, type Viewport } from '../viewport/viewport.js';
import { cropViewport, currentCrop, type Crop } from '../viewport/urlViewport.js';
import { viewportStore } from '../store/viewport.js';
import { bindKeyboard, bindMouse, bindTouch } from './inputBindings.js';
import { DISPLAY_AREA_ATTRIBUTE } from './guacBrowser.js';
import { displayStore } from '../store/index.js';
import { viewerPrefsStore, type ScalingMode } from '../store/viewerPrefs.js';
import type { Hotkey } from './hotkeys.js';
import { watchOverlayHover } from '../overlay/hoverOverlay.js';
import { frameArrived, publish, statsReset } from './connectionStats.js';
import { toastStore } from '../store/toasts.js';

/** Put one client's display into `stage`; returns the undo. */
function attachClient(area: HTMLElement, stage: HTMLElement, client: Guacamole.Client): () => void {
  const display = client.getDisplay();
  const element = display.getElement();
  element.classList.add('remote-display__canvas');
  stage.replaceChildren(element);
  const events = displayStore.getState();

  const cropResult = currentCrop();
  const crop = 'crop' in cropResult ? cropResult.crop : undefined;
  area.classList.toggle('remote-display--cropped', crop !== undefined);
  const rescale = () => {
    const mode: ScalingMode = viewerPrefsStore.getState().scaling;
    const areaSize = { width: area.clientWidth, height: area.clientHeight };
    const desktop = { width: display.getWidth(), height: display.getHeight() };
    area.classList.toggle('remote-display--actual', crop === undefined && mode === 'actual');
    // The viewport (viewport/) is the one place the window⇄desktop mapping is decided; the
    // overlay layer, the person's input and the tool handlers all read the same values.
    const { viewport, origin } =
      crop !== undefined
        ? cropViewport(areaSize, crop)
        : mode === 'fit'
          ? fitViewport(areaSize, desktop)
          : actualViewport(area, desktop);
    const scale = viewport.scale;
    if (scale !== display.getScale()) display.scale(scale);
    if (crop !== undefined) placeCrop(stage, element, crop, viewport, origin);
    events.scaleChanged(scale);
    viewportStore.getState().viewportChanged(viewport, origin);
  };
  const unsubscribePrefs = viewerPrefsStore.subscribe((now, before) => {
    if (now.scaling !== before.scaling) rescale();
  });
  // 1:1 scrolls the area: the visible part of the desktop (the viewport) moves with it.
  area.addEventListener('scroll', rescale, { passive: true });
  display.onresize = (width, height) => {
    events.desktopResized(width, height);
    rescale();
  };
  events.desktopResized(display.getWidth(), display.getHeight());
  rescale();

  statsReset();
  client.onsync = () => frameArrived();
  const statsTimer = setInterval(() => publish(), 1_000);
  const mouse = bindMouse(element, client);
  bindTouch(element, client);
  // Show the remote pointer's image as the local CSS cursor (no lag); fall back to the
  // display's own software cursor where CSS cursors with a hotspot are not supported.
  let cssCursor = false;
  display.oncursor = (canvas, x, y) => {
    cssCursor = mouse.setCursor(canvas, x, y);
    display.showCursor(!cssCursor);
  };
  // A server `mouse` instruction (the pointer moved by someone else, e.g. a tool call) shows
  // the software cursor so the person sees it; once the person moves the mouse again, the CSS
  // cursor is theirs and the software one would only trail behind it.
  const hideSoftwareCursor = () => {
    if (cssCursor) display.showCursor(false);
  };
  element.addEventListener('mousemove', hideSoftwareCursor);

  const observer = new ResizeObserver(rescale);
  observer.observe(area);
  return () => {
    unsubscribePrefs();
    area.removeEventListener('scroll', rescale);
    element.removeEventListener('mousemove', hideSoftwareCursor);
    observer.disconnect();
    display.onresize = null;
    display.oncursor = null;
    client.onsync = null;
    clearInterval(statsTimer);
    // The element stays in the stage (dimmed by CSS) until the next client replaces it, so a
    // reconnect shows the last picture instead of a blank area.
  };
}

/**
 * A cropped window: the stage is the viewport's rectangle in the area (it clips), and the
 * display element sits inside it shifted so desktop (vx, vy) is at the stage's corner. The
 * person's pointer is read relative to the display element, so a click at window (x, y) is
 * desktop (vx + x / scale, vy + y / scale) without any extra arithmetic.
 */
function placeCrop(
  stage: HTMLElement,
  element: HTMLElement,
  crop: Crop,
  viewport: Viewport,
  origin: Point,
): void {
  const s = viewport.scale;
  Object.assign(stage.style, {
    left: `${origin.x}px`,
    top: `${origin.y}px`,
    width: `${crop.vw * s}px`,
    height: `${crop.vh * s}px`,
  });
  Object.assign(element.style, { left: `${-crop.vx * s}px`, top: `${-crop.vy * s}px` });
}

/**
 * 1:1: the visible part of the desktop is what the area's scroll position shows; a desktop
 * smaller than the area is centred.
 */
function actualViewport(
  area: HTMLElement,
  desktop: { width: number; height: number },
): { viewport: Viewport; origin: Point } {
  const width = area.clientWidth;
  const height = area.clientHeight;
  const vw = Math.min(width, desktop.width);
  const vh = Math.min(height, desktop.height);
  const vx = desktop.width > width ? area.scrollLeft : 0;
  const vy = desktop.height > height ? area.scrollTop : 0;
  return {
    viewport: { vx, vy, vw, vh, scale: 1 },
    origin: {
      x: Math.max(0, (width - desktop.width) / 2),
      y: Math.max(0, (height - desktop.height) / 2),
    },
  };
}

export interface RemoteDisplayProps {
  /** A viewer hotkey was pressed while the desktop had the keyboard (see hotkeys.ts). */
  onHotkey: (hotkey: Hotkey) => void;
}

export function RemoteDisplay({ onHotkey }: RemoteDisplayProps) {
  const areaRef = useRef<HTMLDivElement>(null);
  const stageRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const area = areaRef.current;
    const stage = stageRef.current;
    if (!area || !stage) return undefined;
    const { keyboardFocusChanged } = displayStore.getState();

    // A click on the desktop gives it the keyboard. Capture phase: Guacamole.Mouse cancels
    // mousedown, which would otherwise stop the browser from moving focus.
    const takeFocus = () => area.focus({ preventScroll: true });
    const focused = () => keyboardFocusChanged(true);
    const blurred = () => keyboardFocusChanged(false);
    area.addEventListener('mousedown', takeFocus, true);
    area.addEventListener('focus', focused);
    area.addEventListener('blur', blurred);
    const unbindKeyboard = bindKeyboard(area, onHotkey);
    const crop = currentCrop();
    if ('error' in crop) toastStore.getState().toastShown('warn', crop.error);
    const unwatchHover = watchOverlayHover(area);

    let detach: (() => void) | undefined;
    const unsubscribe = onActiveClientChange((client) => {
      detach?.();
      detach = client ? attachClient(area, stage, client) : undefined;
      stage.classList.toggle('remote-display__stage--stale', !client);
    });

    return () => {
      unsubscribe();
      detach?.();
      stage.replaceChildren();
      unbindKeyboard();
      unwatchHover();
      area.removeEventListener('mousedown', takeFocus, true);
      area.removeEventListener('focus', focused);
      area.removeEventListener('blur', blurred);
    };
  }, [onHotkey]);

  const areaProps = { [DISPLAY_AREA_ATTRIBUTE]: '' };
  return (
    <div
      ref={areaRef}
      className="remote-display"
      tabIndex={0}
      role="application"
      aria-label="Remote desktop. Click to send keyboard input to it."
      {...areaProps}
    >
      <div ref={stageRef} className="remote-display__stage" />
    </div>
  );
}
