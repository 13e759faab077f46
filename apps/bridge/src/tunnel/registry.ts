// The open tunnels of one bridge, by tunnel UUID. Keeps each tunnel's guacd connection id,
// which is what a second browser window needs to join the same desktop (`select $<id>`).

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

export class TunnelRegistry {
  private readonly tunnels = new Map<string, RegisteredTunnel>();

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

  closeAll(status: number, message: string): void {
    for (const tunnel of [...this.tunnels.values()]) tunnel.close(status, message);
  }
}
