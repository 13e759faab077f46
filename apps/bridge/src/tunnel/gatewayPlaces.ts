// Where each desktop's running connection lives in the gateway pool: the member ("host:port") and
// the connection's id (a capability to join it: kept in memory and in the site's NATS, never
// logged). A bridge holds a place while its windows are on that connection; any bridge reads it
// to join the connection on the right member, and the pool counts places per member as its load.
// One bridge alone keeps places in memory (here); a site keeps them in NATS's key-value store
// (site/gatewayLeases.ts), where a bridge that dies stops refreshing them and they expire.
import { z } from 'zod';

export const GatewayPlace = z.strictObject({
  /** The pool member, "host:port" as in --gateways. */
  member: z.string().min(3).max(300),
  /** The connection's id from `ready` (`$<uuid>` for our gateway and guacd alike). */
  connectionId: z.string().regex(/^\$[A-Za-z0-9-]{1,100}$/),
  /**
   * HMAC-SHA256 of desktop, member and id with the pool secret (gatewayPool.ts): a place written
   * by someone with the site's NATS credentials but not the pool secret is never joined.
   */
  mac: z.string().max(100).optional(),
});
export type GatewayPlace = z.infer<typeof GatewayPlace>;

export interface GatewayPlaces {
  get(desktopId: string): Promise<GatewayPlace | undefined>;
  close?(): void;
  /** This bridge has windows on the desktop's connection at this place. */
  hold(desktopId: string, place: GatewayPlace): Promise<void>;
  /** This bridge's last window on it left (the connection may live on for other bridges). */
  release(desktopId: string, place: GatewayPlace): Promise<void>;
  /** The connection at this place has ended (the gateway said so): nobody should join it. */
  forget(desktopId: string, place: GatewayPlace): Promise<void>;
  /** Connections per member ("host:port" → count), for least-load placement. */
  loads(): Promise<Map<string, number>>;
}

/** One bridge's places: a connection ends with its last window, which is this bridge's. */
export class MemoryGatewayPlaces implements GatewayPlaces {
  private readonly places = new Map<string, GatewayPlace>();

  get(desktopId: string): Promise<GatewayPlace | undefined> {
    return Promise.resolve(this.places.get(desktopId));
  }

  hold(desktopId: string, place: GatewayPlace): Promise<void> {
    this.places.set(desktopId, place);
    return Promise.resolve();
  }

  release(desktopId: string, place: GatewayPlace): Promise<void> {
    if (this.places.get(desktopId)?.connectionId === place.connectionId)
      this.places.delete(desktopId);
    return Promise.resolve();
  }

  forget(desktopId: string, place: GatewayPlace): Promise<void> {
    return this.release(desktopId, place);
  }

  loads(): Promise<Map<string, number>> {
    return Promise.resolve(countByMember(this.places.values()));
  }
}

export function countByMember(places: Iterable<GatewayPlace>): Map<string, number> {
  const loads = new Map<string, number>();
  for (const { member } of places) loads.set(member, (loads.get(member) ?? 0) + 1);
  return loads;
}
