// The chrome of a monitor window (a `?vx=…` viewport): when the bar above the picture would
// cover or shrink some of the viewport's rows, the bar and the key-reading banner float over the
// page instead and hide while unused, so every desktop pixel the window is meant to show is
// shown. They come back while the desktop is away, for a few seconds after connecting, when the
// pointer rests at the window's top edge, on the viewer's chord (Ctrl+Alt+Shift, with S for
// Stop), when an AI starts reading key presses, and while focus or an open menu is in them
// (floatingChrome.css). A window with room for the bar keeps it docked above the picture.
import { useEffect, useState, type RefObject } from 'react';
import { useStore } from 'zustand';
import type { Size } from '../display/fit.js';
import { controlStore } from '../store/control.js';
import { useConnectionData } from '../store/index.js';
import { readsKeyPresses } from '../ui/keyReading.js';
import { cropViewport, currentCrop, type Crop } from './urlViewport.js';
import './floatingChrome.css';

/** How the chrome of this window is laid out: above the picture, or over it shown or hidden. */
export type ChromeState = 'docked' | 'shown' | 'hidden';

/** The pointer this close to the window's top edge (CSS px) asks for the chrome… */
const EDGE_PX = 3;
/** …once it has rested there this long, so a pass to the desktop's top rows does not. */
const EDGE_DWELL_MS = 250;
/** Hidden again this long after the pointer leaves it (focus and open menus keep it). */
const LINGER_MS = 1200;
/** Shown this long after connecting, after a chord, or when an AI starts reading keys. */
const NOTICE_MS = 4000;

/**
 * Whether the chrome must float over a monitor window: when the viewport's picture, at the scale
 * it has with the whole window to itself, is taller than the room left below the chrome.
 */
export function chromeFloats(window: Size, chromeHeight: number, crop: Crop): boolean {
  const { viewport } = cropViewport(window, crop);
  return crop.vh * viewport.scale > window.height - chromeHeight + 0.5;
}

function pageCrop(): Crop | undefined {
  const result = currentCrop();
  return 'crop' in result ? result.crop : undefined;
}

/** Whether the chrome (`header`, the status bar) floats in this window, and if so whether shown. */
export function useFloatingChrome(header: RefObject<HTMLElement | null>): ChromeState {
  const floats = useFloats(header);
  const connected = useConnectionData().phase === 'connected';
  const reading = useStore(controlStore, (state) => readsKeyPresses(state.eventInterest));
  const [pointerIn, setPointerIn] = useState(false);
  // Each notice (connected, an AI reading keys, a chord) shows the chrome until NOTICE_MS after
  // the latest one: it is shown while the latest notice has not yet expired.
  const [notices, setNotices] = useState(0);
  const [expired, setExpired] = useState(0);
  const [seen, setSeen] = useState({ connected, reading });
  if (seen.connected !== connected || seen.reading !== reading) {
    setSeen({ connected, reading });
    if ((connected && !seen.connected) || (reading && !seen.reading)) setNotices((n) => n + 1);
  }
  useEffect(() => {
    if (notices === 0) return undefined;
    const timer = setTimeout(() => setExpired(notices), NOTICE_MS);
    return () => clearTimeout(timer);
  }, [notices]);

  useEffect(() => {
    if (!floats) return undefined;
    let dwell: ReturnType<typeof setTimeout> | undefined;
    let linger: ReturnType<typeof setTimeout> | undefined;
    const onMove = (event: PointerEvent) => {
      const bottom = header.current?.getBoundingClientRect().bottom ?? 0;
      if (event.clientY <= EDGE_PX && event.buttons === 0) {
        dwell ??= setTimeout(() => setPointerIn(true), EDGE_DWELL_MS);
      } else {
        clearTimeout(dwell);
        dwell = undefined;
      }
      if (event.clientY <= bottom) {
        clearTimeout(linger);
        linger = undefined;
      } else {
        linger ??= setTimeout(() => setPointerIn(false), LINGER_MS);
      }
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey && event.altKey && event.shiftKey) setNotices((n) => n + 1);
    };
    window.addEventListener('pointermove', onMove, { capture: true, passive: true });
    window.addEventListener('keydown', onKey, { capture: true });
    return () => {
      clearTimeout(dwell);
      clearTimeout(linger);
      window.removeEventListener('pointermove', onMove, { capture: true });
      window.removeEventListener('keydown', onKey, { capture: true });
    };
  }, [floats, header]);

  if (!floats) return 'docked';
  return !connected || pointerIn || notices !== expired ? 'shown' : 'hidden';
}

/** chromeFloats for this page, kept current as the window and the chrome change size. */
function useFloats(header: RefObject<HTMLElement | null>): boolean {
  const [floats, setFloats] = useState(false);
  useEffect(() => {
    const crop = pageCrop();
    const element = header.current;
    if (crop === undefined || element === null) return undefined;
    const update = () => {
      // Banner and bar are stacked from the page's top in both layouts, so this is their height.
      const chromeHeight = element.getBoundingClientRect().bottom;
      const size = { width: window.innerWidth, height: window.innerHeight };
      setFloats(chromeFloats(size, chromeHeight, crop));
    };
    const observer = new ResizeObserver(update);
    observer.observe(element);
    const banner = element.parentElement?.querySelector('.key-banner-slot');
    if (banner) observer.observe(banner);
    window.addEventListener('resize', update);
    update();
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', update);
    };
  }, [header]);
  return floats;
}
