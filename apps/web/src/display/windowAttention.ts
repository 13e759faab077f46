// How closely this viewer window is looked at, told to the desktop's server on its tunnel
// (packages/protocol's attention.ts): a window in a hidden tab glances — our gateway then sends
// it about one frame a second — unless it is the window that runs the AI's tools, whose frames
// are what the AI's screenshots and waits see and are never thinned. Back in view, full again.
import type { TunnelAttention } from '@overlay-companion/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { ConnectionState } from '../store/connection.js';
import type { ControlState, ViewerRole } from '../store/control.js';

export function windowAttention(hidden: boolean, role: ViewerRole | null): TunnelAttention {
  // An unknown role (before the bridge's hello) may be control: full, to be safe.
  return hidden && role === 'mirror' ? 'glance' : 'full';
}

export interface AttentionDeps {
  connection: Pick<StoreApi<ConnectionState>, 'getState' | 'subscribe'>;
  control: Pick<StoreApi<ControlState>, 'getState' | 'subscribe'>;
  hidden: () => boolean;
  onVisibilityChange: (listener: () => void) => () => void;
  /** Sends the level on the current tunnel. */
  send: (level: TunnelAttention) => void;
}

/** Keeps the server told; returns a function that stops. */
export function followWindowAttention(deps: AttentionDeps): () => void {
  // Every tunnel starts at full: what the server was told resets with each connection.
  let told: TunnelAttention = 'full';
  const update = (): void => {
    if (deps.connection.getState().phase !== 'connected') {
      told = 'full';
      return;
    }
    const level = windowAttention(deps.hidden(), deps.control.getState().role);
    if (level === told) return;
    deps.send(level);
    told = level;
  };
  const stops = [
    deps.connection.subscribe(update),
    deps.control.subscribe(update),
    deps.onVisibilityChange(update),
  ];
  update();
  return () => {
    for (const stop of stops) stop();
  };
}
