// Mounts the live Guacamole display element into the page, scales it to fit (keeping the
// aspect ratio, recomputed whenever the area or the desktop changes size), and binds the
// person's mouse and keyboard to it. Frames are drawn by guacamole-common-js straight into
// its canvases: this component renders once and then only reacts to client changes.
import { useEffect, useRef } from 'react';
import type Guacamole from 'guacamole-common-js';
import { onActiveClientChange } from './activeClient.js';
import { fitViewport } from '../viewport/viewport.js';
import { viewportStore } from '../store/viewport.js';
import { bindKeyboard, bindMouse } from './inputBindings.js';
import { DISPLAY_AREA_ATTRIBUTE } from './guacBrowser.js';
import { displayStore } from '../store/index.js';

/** Put one client's display into `stage`; returns the undo. */
function attachClient(area: HTMLElement, stage: HTMLElement, client: Guacamole.Client): () => void {
  const display = client.getDisplay();
  const element = display.getElement();
  element.classList.add('remote-display__canvas');
  stage.replaceChildren(element);
  const events = displayStore.getState();

  const rescale = () => {
    // The viewport (viewport/) is the one place the window⇄desktop mapping is decided; the
    // overlay layer and the tool handlers read the same values from the viewport store.
    const { viewport, origin } = fitViewport(
      { width: area.clientWidth, height: area.clientHeight },
      { width: display.getWidth(), height: display.getHeight() },
    );
    const scale = viewport.scale;
    if (scale !== display.getScale()) display.scale(scale);
    events.scaleChanged(scale);
    viewportStore.getState().viewportChanged(viewport, origin);
  };
  display.onresize = (width, height) => {
    events.desktopResized(width, height);
    rescale();
  };
  events.desktopResized(display.getWidth(), display.getHeight());
  rescale();

  const mouse = bindMouse(element, client);
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
    element.removeEventListener('mousemove', hideSoftwareCursor);
    observer.disconnect();
    display.onresize = null;
    display.oncursor = null;
    // The element stays in the stage (dimmed by CSS) until the next client replaces it, so a
    // reconnect shows the last picture instead of a blank area.
  };
}

export function RemoteDisplay() {
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
    const unbindKeyboard = bindKeyboard(area);

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
      area.removeEventListener('mousedown', takeFocus, true);
      area.removeEventListener('focus', focused);
      area.removeEventListener('blur', blurred);
    };
  }, []);

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
