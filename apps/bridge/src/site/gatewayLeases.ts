// Where each desktop's connection lives in the gateway pool, for the whole site: a key-value
// bucket of its own in the site's NATS (`place.<desktop>` → { member, connectionId }), with a TTL.
// Every bridge with windows on a connection refreshes its place three times per TTL; when the last
// of them is gone (the connection ended with its last window, or their bridges died) it expires.
// Each bridge follows the bucket with a watch, so a window's join and the pool's least-load
// count (places per member) cost no trip to NATS. A value is sealed with the site's key (besides
// its own pool signature) and opened and parsed with its schema where it arrives; one that
// fails is dropped and logged. While NATS is away the bridge knows what its
// watch last said; a place it cannot read is treated as none (a new connection is opened).
import type { KV, KvEntry, QueuedIterator } from 'nats';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import { GatewayPlace, countByMember, type GatewayPlaces } from '../tunnel/gatewayPlaces.js';
import type { SiteBus } from './siteBus.js';

/** A place outlives the last refresh of the last bridge holding it by this much. */
export const PLACE_TTL_MS = 15_000;

export class GatewayLeases implements GatewayPlaces {
  /**
   * The site's places as the watch last told them, by key, with when. The bucket drops an
   * expired place without telling the watch, so one not refreshed within the TTL is ignored.
   */
  private readonly known = new Map<string, { place: GatewayPlace; at: number }>();
  /** Places this bridge holds (has windows on), refreshed by the timer. */
  private readonly held = new Map<string, GatewayPlace>();
  private readonly timer: NodeJS.Timeout;
  private watcher: QueuedIterator<KvEntry> | undefined;
  private closed = false;

  constructor(
    private readonly bus: SiteBus,
    private readonly logger: Logger,
    private readonly ttlMs = PLACE_TTL_MS,
  ) {
    this.timer = setInterval(() => void this.refresh(), Math.floor(ttlMs / 3));
    this.timer.unref();
    void this.watch();
  }

  async get(desktopId: string): Promise<GatewayPlace | undefined> {
    const key = placeKey(desktopId);
    const known = this.fresh(key);
    if (known !== undefined) return known;
    try {
      const entry = await (await this.kv()).get(key);
      if (entry === null || entry.operation !== 'PUT') return undefined;
      return this.parse(entry);
    } catch (err) {
      this.logger.warn({ desktopId, err: errorMessage(err) }, 'site: no gateway place readable');
      return undefined;
    }
  }

  async hold(desktopId: string, place: GatewayPlace): Promise<void> {
    this.held.set(desktopId, place);
    this.known.set(placeKey(desktopId), { place, at: Date.now() });
    const key = placeKey(desktopId);
    await (await this.kv()).put(key, this.bus.seal(key, place));
  }

  release(desktopId: string, place: GatewayPlace): Promise<void> {
    // Other bridges' windows may still be on it: the place expires once none refreshes it.
    if (this.held.get(desktopId)?.connectionId === place.connectionId) this.held.delete(desktopId);
    return Promise.resolve();
  }

  async forget(desktopId: string, place: GatewayPlace): Promise<void> {
    const key = placeKey(desktopId);
    if (this.known.get(key)?.place.connectionId !== place.connectionId) return;
    this.known.delete(key);
    if (this.held.get(desktopId)?.connectionId === place.connectionId) this.held.delete(desktopId);
    await (await this.kv()).delete(key).catch(() => undefined);
  }

  loads(): Promise<Map<string, number>> {
    const places: GatewayPlace[] = [];
    for (const key of this.known.keys()) {
      const place = this.fresh(key);
      if (place !== undefined) places.push(place);
    }
    return Promise.resolve(countByMember(places));
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.watcher?.stop();
  }

  private kv(): Promise<KV> {
    // The site's bucket (named after the site id, on as many NATS nodes as siteBus.ts keeps).
    return this.bus.bucket('gateways', this.ttlMs);
  }

  private fresh(key: string): GatewayPlace | undefined {
    const known = this.known.get(key);
    if (known === undefined) return undefined;
    if (Date.now() - known.at <= this.ttlMs) return known.place;
    this.known.delete(key);
    return undefined;
  }

  private parse(entry: KvEntry): GatewayPlace | undefined {
    const parsed = this.bus.openValue(GatewayPlace, entry, this.ttlMs);
    if (parsed.ok) return parsed.message;
    this.bus.dropped.warn(
      { key: entry.key, error: parsed.error },
      'site: a gateway place failed its seal or schema',
    );
    return undefined;
  }

  private async refresh(): Promise<void> {
    if (this.closed || this.held.size === 0) return;
    try {
      const kv = await this.kv();
      for (const [desktopId, place] of this.held)
        await kv.put(placeKey(desktopId), this.bus.seal(placeKey(desktopId), place));
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, 'site: gateway places not refreshed');
    }
  }

  /** Follows the bucket (again after NATS comes back), keeping `known`. */
  private async watch(): Promise<void> {
    while (!this.closed) {
      try {
        const kv = await this.kv();
        this.watcher = await kv.watch({ key: 'place.>' });
        for await (const entry of this.watcher) {
          const place = entry.operation === 'PUT' ? this.parse(entry) : undefined;
          if (place === undefined) this.known.delete(entry.key);
          else this.known.set(entry.key, { place, at: Date.now() });
        }
      } catch (err) {
        if (!this.closed)
          this.logger.warn({ err: errorMessage(err) }, 'site: gateway place watch ended');
      }
      if (!this.closed) await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** The place's key: the desktop id in hex (ids are base64url; keys take fewer characters). */
function placeKey(desktopId: string): string {
  return `place.${Buffer.from(desktopId).toString('hex')}`;
}
