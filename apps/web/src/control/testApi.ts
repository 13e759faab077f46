// A read-only window onto the viewer's state for end-to-end tests and debugging, at
// window.__overlayCompanion. It only returns copies: nothing here can approve a confirmation,
// change the mode or draw — approvals come from the person clicking the panel's buttons.
import type { StoreApi } from 'zustand/vanilla';
import type { ConfirmationState } from '../store/pendingConfirmations.js';
import type { ControlState } from '../store/control.js';
import type { OverlayState } from '../store/overlays.js';
import type { ViewportState } from '../store/viewport.js';
import { shotCounts } from './screen/lastShot.js';
import { paintAckStore, whenPainted } from '../overlay/paintAck.js';

export interface TestApiStores {
  overlays: StoreApi<OverlayState>;
  control: StoreApi<ControlState>;
  viewport: StoreApi<ViewportState>;
  confirmations: StoreApi<ConfirmationState>;
}

export function installTestApi(stores: TestApiStores): void {
  const copy = <T>(value: T): T => structuredClone(value);
  const api = Object.freeze({
    overlays: () => copy(stores.overlays.getState().overlays),
    overlaySeq: () => stores.overlays.getState().seq,
    viewport: () =>
      copy({ ...stores.viewport.getState().viewport, origin: stores.viewport.getState().origin }),
    control: () => {
      const s = stores.control.getState();
      return copy({
        link: s.link,
        linkDetail: s.linkDetail,
        role: s.role,
        viewerId: s.viewerId,
        mode: s.mode,
        metadata: s.metadata,
        headless: s.headless,
        eventInterest: s.eventInterest,
      });
    },
    pendingConfirmations: () => copy(stores.confirmations.getState().pending),
    // How many screenshot images were encoded and stored, and how many reused (lastShot.ts).
    screenshots: () => copy(shotCounts),
    // The overlay layer's painting: its path, the state last handed to it and the last one
    // painted (the worker's acknowledgement); and a wait for the paint of a given frame.
    overlayPaint: () => copy(paintAckStore.getState()),
    overlayPainted: (frame: number) => whenPainted(frame).then(copy),
  });
  // Installed once per page; a second call (dev reloads of this module) keeps the first.
  if (Object.hasOwn(window, '__overlayCompanion')) return;
  Object.defineProperty(window, '__overlayCompanion', {
    value: api,
    writable: false,
    configurable: false,
  });
}
