// The open tunnels of one bridge, by tunnel UUID, and what the rest of the bridge may ask about
// the desktops' connections: a desktop's size as last seen (for the layout editor), applying a
// newly decided size (when a layout is saved), and whether anyone has it open (idle stop).
// Keeps each tunnel's guacd connection id, which is what a further window joins (`select $<id>`).
// Also remembers whether the desktop link has stalled (for /readyz): the desktop server's
// keep-alives (`nop`) reach the bridge even while the desktop behind it is silent, so what
// counts is a tunnel ended with 514 (the gateway gave up waiting for the desktop, or the
// bridge's own link watch did, behind guacd: linkWatch.ts), until a tunnel hears from the
// desktop again.
import type { DesktopSize } from '../desktops/desktopSize.js';
import type { DesktopConnections, ResizeOutcome } from './desktopConnections.js';

export type { ResizeOutcome } from './desktopConnections.js';

export interface TunnelInfo {
  /** The UUID sent to the browser as the tunnel's first instruction. */
  uuid: string;
  /** guacd's connection id from `ready`; undefined while the handshake is still running. */
  connectionId: string | undefined;
  openedAt: number;
}

export interface RegisteredTunnel extends TunnelInfo {
  close(status: number, message: string): void;
}

/**
 * A stall is forgotten this long after it was last seen when no tunnel shows otherwise: with
 * nobody reconnecting nothing tells the bridge more, and a browser that does reconnect sees it
 * again within the desktop server's timeout.
 */
export const STALL_MEMORY_MS = 60_000;

export class TunnelRegistry {
  private readonly tunnels = new Map<string, RegisteredTunnel>();
  private stall: { since: number; lastSeen: number } | undefined;

  constructor(private readonly connections: DesktopConnections) {}

  add(tunnel: RegisteredTunnel): void {
    this.tunnels.set(tunnel.uuid, tunnel);
  }

  delete(uuid: string): void {
    this.tunnels.delete(uuid);
  }

  get size(): number {
    return this.tunnels.size;
  }

  list(): TunnelInfo[] {
    return [...this.tunnels.values()].map(({ uuid, connectionId, openedAt }) => ({
      uuid,
      connectionId,
      openedAt,
    }));
  }

  /** Ids of the guacd connections currently relayed, without duplicates. */
  connectionIds(): string[] {
    const ids = new Set<string>();
    for (const tunnel of this.tunnels.values())
      if (tunnel.connectionId) ids.add(tunnel.connectionId);
    return [...ids];
  }

  /**
   * The person's desktop size as the bridge last saw it (the server's `size` for layer 0 on
   * any of their tunnels); undefined before their first connection showed the desktop.
   */
  desktopSize(desktopId: string): DesktopSize | undefined {
    return this.connections.desktopSize(desktopId);
  }

  /**
   * Applies a newly decided desktop size for the person (call it when their layout is saved).
   * Resolves once the desktop reports the new size, or with the reason it did not change: the
   * operator fixed the size, the RDP session is not connected, or the server did not take it.
   */
  resizeDesktop(desktopId: string, size: DesktopSize): Promise<ResizeOutcome> {
    return this.connections.resizeDesktop(desktopId, size);
  }

  /**
   * Nothing decides the desktop's size any more (its layout was cleared): back to the size it
   * had before the bridge first resized it, or the reason it keeps its size.
   */
  restoreDesktopSize(desktopId: string): Promise<ResizeOutcome> {
    return this.connections.restoreDesktopSize(desktopId);
  }

  /** A tunnel ended because the desktop server timed out waiting for the desktop (514). */
  linkTimedOut(now = Date.now()): void {
    this.stall = { since: this.stall?.since ?? now, lastSeen: now };
  }

  /** A tunnel heard from the desktop (a drawing instruction, not the server's keep-alive). */
  desktopAnswered(): void {
    this.stall = undefined;
  }

  /** Since when the desktop link has been stalled, or undefined when it is not known to be. */
  stalledSince(now = Date.now()): number | undefined {
    if (this.stall !== undefined && now - this.stall.lastSeen > STALL_MEMORY_MS) {
      this.stall = undefined;
    }
    return this.stall?.since;
  }

  closeAll(status: number, message: string): void {
    for (const tunnel of [...this.tunnels.values()]) tunnel.close(status, message);
  }

  /** Whether any window has the desktop open now. */
  inUse(desktopId: string): boolean {
    return this.connections.inUse(desktopId);
  }
}
