// One tile's live picture: its own Guacamole client joining the desktop's connection through the
// bridge's /tunnel (a fresh single-use tunnel ticket for that desktop per attempt, reconnecting
// like the viewer: GuacSession), watch-only (no mouse or keyboard is attached, so nothing of the
// person's reaches the desktop from here). The client's display is never put in the page: a
// small canvas is painted from its default layer — every animation frame while the tile is
// focused or pointed at, once per UNFOCUSED_FRAME_MS otherwise, and only when the client drew a
// frame since (a still desktop costs no repaints) — so twenty tiles cost twenty
// decoders but almost no compositing. The tile also tells the desktop's server how closely it is
// looked at (packages/protocol's attention.ts): an unfocused tile is a `thumbnail`, and our
// gateway sends it about one frame a second of what changed, already scaled down to a tile's
// size (packages/guac's THUMBNAIL_BOX: one small image to decode instead of full-size changes),
// encoded once for every tile of that desktop; a focused or pointed-at tile gets the full
// picture at full rate.
import Guacamole from 'guacamole-common-js';
import {
  ATTENTION_TUNNEL_OPCODE,
  TUNNEL_SOCKET_PATH,
  type TunnelAttention,
} from '@overlay-companion/protocol';
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { GuacSession } from '../display/guacSession.js';
import { fetchTicket } from '../net/tickets.js';
import { wsUrl } from '../net/wsUrl.js';
import { connectionEvents, createConnectionStore } from '../store/connection.js';

/** How often an unfocused tile's picture is repainted. */
export const UNFOCUSED_FRAME_MS = 1000;
/** The size the tile announces in the handshake (the desktop is never resized for it): THUMBNAIL_BOX. */
const TILE_CONNECT_SIZE = { width: 480, height: 300, dpi: 96 };

export interface TileDisplayProps {
  desktopId: string;
  desktopName: string;
  /** Focused or pointed at: painted at the display's own rate. */
  lively: boolean;
}

export function TileDisplay({ desktopId, desktopName, lively }: TileDisplayProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const livelyRef = useRef(lively);
  const tunnelRef = useRef<Guacamole.Tunnel | null>(null);
  const [connection] = useState(createConnectionStore);
  const phase = useStore(connection, (s) => s.phase);
  const lastError = useStore(connection, (s) => s.lastError);

  useEffect(() => {
    let client: Guacamole.Client | null = null;
    /** Something was drawn since the last repaint (a still desktop is not repainted). */
    let changed = true;
    const session = new GuacSession<Guacamole.Client>({
      open: () => {
        const tunnel = new Guacamole.WebSocketTunnel(wsUrl(TUNNEL_SOCKET_PATH));
        tunnelRef.current = tunnel;
        return { tunnel, client: new Guacamole.Client(tunnel) };
      },
      events: connectionEvents(connection),
      size: () => TILE_CONNECT_SIZE,
      ticket: () => fetchTicket('tunnel', undefined, { desktop: desktopId }),
      onClientChanged: (next) => {
        client = next;
        changed = true;
        // A frame drawn (guacamole-common-js's `sync`) is what makes a repaint worth doing.
        if (next !== null) next.onsync = () => (changed = true);
      },
    });
    session.start();

    let stopped = false;
    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const paint = (): void => {
      if (!changed) return;
      const target = canvas.current;
      const display = client?.getDisplay();
      if (target === null || display === undefined) return;
      const width = display.getWidth();
      const height = display.getHeight();
      if (width <= 0 || height <= 0) return;
      const cssWidth = target.clientWidth;
      if (cssWidth <= 0) return;
      const scale = window.devicePixelRatio || 1;
      const w = Math.max(1, Math.round(cssWidth * scale));
      const h = Math.max(1, Math.round((w * height) / width));
      if (target.width !== w || target.height !== h) {
        target.width = w;
        target.height = h;
      }
      const context = target.getContext('2d');
      if (context === null) return;
      context.imageSmoothingQuality = 'medium';
      context.drawImage(display.getDefaultLayer().getCanvas(), 0, 0, width, height, 0, 0, w, h);
      changed = false;
    };
    const loop = (): void => {
      if (stopped) return;
      paint();
      if (livelyRef.current) frame = requestAnimationFrame(loop);
      else timer = setTimeout(loop, UNFOCUSED_FRAME_MS);
    };
    loop();
    // A tile coming to life repaints at once rather than after its slow tick.
    const wake = (): void => {
      if (!livelyRef.current) return;
      clearTimeout(timer);
      cancelAnimationFrame(frame);
      loop();
    };
    const target = canvas.current;
    target?.addEventListener('oc-tile-wake', wake);
    return () => {
      stopped = true;
      clearTimeout(timer);
      cancelAnimationFrame(frame);
      target?.removeEventListener('oc-tile-wake', wake);
      session.stop();
    };
  }, [desktopId, connection]);

  useEffect(() => {
    livelyRef.current = lively;
    if (lively) canvas.current?.dispatchEvent(new Event('oc-tile-wake'));
  }, [lively]);

  // Once connected (every attempt starts at full attention), and whenever it changes.
  useEffect(() => {
    if (phase !== 'connected') return;
    const level: TunnelAttention = lively ? 'full' : 'thumbnail';
    tunnelRef.current?.sendMessage(ATTENTION_TUNNEL_OPCODE, level);
  }, [phase, lively]);

  const away = phase !== 'connected';
  return (
    <div className="fleet-tile__picture" data-testid="fleet-tile-picture">
      <canvas
        ref={canvas}
        className="fleet-tile__canvas"
        role="img"
        aria-label={`Live picture of ${desktopName}`}
        data-desktop-id={desktopId}
        data-lively={lively ? 'true' : 'false'}
      />
      {away && (
        <p className="fleet-tile__away">
          {phase === 'connecting' || phase === 'idle' || phase === 'waiting'
            ? 'Connecting…'
            : (lastError?.message ?? 'The desktop is away; retrying…')}
        </p>
      )}
    </div>
  );
}
