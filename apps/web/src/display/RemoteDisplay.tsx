// Mounts the live Guacamole display element into the page, scales it to fit (keeping the
// aspect ratio, recomputed whenever the area or the desktop changes size), and binds the
// person's mouse and keyboard to it. Frames are drawn by guacamole-common-js straight into
// its canvases: this component renders once and then only reacts to client changes.
import { useEffect, useRef } from 'react';
import type Guacamole from 'guacamole-common-js';
import { onActiveClientChange } from './activeClient.js';
import { fitViewport, type Point, type Viewport } from '../viewport/viewport.js';
import { viewportStore } from '../store/viewport.js';
import { bindKeyboard, bindMouse, bindTouch } from './inputBindings.js';
import { DISPLAY_AREA_ATTRIBUTE } from './guacBrowser.js';
import { displayStore } from '../store/index.js';
import { viewerPrefsStore, type ScalingMode } from '../store/viewerPrefs.js';
import type { Hotkey } from './hotkeys.js';
import { watchOverlayHover } from '../overlay/hoverOverlay.js';
import { frameArrived, publish, statsReset } from './connectionStats.js';

/** How long the area must keep its size before "resize the remote" asks the desktop to follow. */
const REMOTE_RESIZE_SETTLE_MS = 400;

/** Put one client's display into `stage`; returns the undo. */
function attachClient(area: HTMLElement, stage: HTMLElement, client: Guacamole.Client): () => void {
  const display = client.getDisplay();
  const element = display.getElement();
  element.classList.add('remote-display__canvas');
  stage.replaceChildren(element);
  const events = displayStore.getState();

  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  let askedSize = '';
  const rescale = () => {
    const mode: ScalingMode = viewerPrefsStore.getState().scaling;
    const areaSize = { width: area.clientWidth, height: area.clientHeight };
    const desktop = { width: display.getWidth(), height: display.getHeight() };
    area.classList.toggle('remote-display--actual', mode === 'actual');
    // The viewport (viewport/) is the one place the window⇄desktop mapping is decided; the
    // overlay layer and the tool handlers read the same values from the viewport store.
    const { viewport, origin } =
      mode === 'fit' ? fitViewport(areaSize, desktop) : actualViewport(area, desktop);
    const scale = viewport.scale;
    if (scale !== display.getScale()) display.scale(scale);
    events.scaleChanged(scale);
    viewportStore.getState().viewportChanged(viewport, origin);
    if (mode === 'remote') {
      // Only in this mode, chosen by the person: the desktop follows this window's area.
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        const wanted = `${areaSize.width}x${areaSize.height}`;
        if (wanted === askedSize || areaSize.width < 64 || areaSize.height < 64) return;
        if (desktop.width === areaSize.width && desktop.height === areaSize.height) return;
        askedSize = wanted;
        client.sendSize(areaSize.width, areaSize.height);
      }, REMOTE_RESIZE_SETTLE_MS);
    } else {
      askedSize = '';
    }
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
    clearTimeout(resizeTimer);
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
 * 1:1 (and "resize the remote", which is 1:1 once the desktop has followed): the visible part of
 * the desktop is what the area's scroll position shows; a desktop smaller than the area is
 * centred.
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
