// Which bridge of the site holds each desktop's control window (the person's window that runs the
// AI's calls): a lease in the site's key-value bucket (`control.<desktop>` → { bridge, headless }),
// kept by the holder while its hub has a control window, refreshed three times per TTL and deleted
// when the window goes. A bridge that dies stops refreshing, and its leases expire by themselves
// (the bucket's TTL). Each bridge also follows the bucket with a watch, so looking a holder up
// costs nothing on the way of a forwarded call (remoteControl.ts).
// The lease is also the site's control-window election: a window that opens while another
// bridge holds the lease is a mirror (ViewerHub's controlElsewhere); when the lease is gone
// (given up, or expired with its bridge), a bridge with a window of the person in charge makes
// it the control window (claimControl) and takes the lease; of two bridges whose windows came at
// once, the one that created the lease keeps its control window and the other yields it.
// After the bus was away longer than the TTL the lease is gone from the bucket although its
// bridge's window stayed control all along: for one TTL (RECLAIM_GRACE_TTLS) after the bus is back, only a
// bridge that held the lease takes it again (at once, not at its next refresh); a bridge with
// mirrors only waits, so the control role does not move by itself.
import type { KV, KvEntry, QueuedIterator } from 'nats';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import type { DesktopPlane, DesktopPlanes } from '../mcp/desktopPlanes.js';
import type { RemoteHolder } from '../mcp/relayCall.js';
import { pingBridge } from './bridgePing.js';
import { ControlLease } from './messages.js';
import type { SiteBus } from './siteBus.js';

/** How long a holder's answer to "still there?" may take (a slow one is not taken as gone). */
const PING_TIMEOUT_MS = 1_000;
/** How often a wait for a lease (told) checks whether it may stop early. */
const STOP_CHECK_MS = 20;
/**
 * How long after the bus is back a bridge with mirrors only leaves a free lease to the bridge
 * that held it (in lease TTLs): long enough for that bridge to reconnect (every 250 ms) and write
 * it again even if its first try comes at its next refresh; short enough that, when it no longer
 * has a window, the mirror here becomes the control window soon.
 */
const RECLAIM_GRACE_TTLS = 1;

interface HeldLease {
  revision: number;
  headless: boolean;
}

export interface ControlLeasesOptions {
  bus: SiteBus;
  planes: DesktopPlanes;
  logger: Logger;
  /**
   * Another bridge took, gave up or lost a desktop's control window, as the watch told it (what
   * the site shows of where the person's control window is: the fleet tile, fleet/fleetState.ts).
   */
  holderChanged?: ((desktopId: string) => void) | undefined;
}

export class ControlLeases {
  private readonly held = new Map<string, HeldLease>();
  private readonly watched = new WeakSet<DesktopPlane>();
  private readonly timer: NodeJS.Timeout;
  private syncing: Promise<void> = Promise.resolve();
  /** A sync waits its turn: another asked meanwhile adds nothing (no backlog while NATS is away). */
  private syncQueued = false;
  private closed = false;
  /**
   * The leases of the other bridges as the bucket's watch last told them, so a forwarded call
   * costs one trip, not two. A lease that expired is not told (the bucket drops it silently):
   * a call sent to a dead holder finds no responder and is refused, and the entry is forgotten.
   */
  private readonly known = new Map<string, RemoteHolder>();
  private watcher: QueuedIterator<KvEntry> | undefined;
  /** Who waits for the watch to tell a lease of another bridge, by key (see told). */
  private readonly waiting = new Map<string, Set<() => void>>();
  /** When the bus was last back after being away (see mayClaim). */
  private backAt: number | undefined;

  constructor(private readonly options: ControlLeasesOptions) {
    // Refreshed three times per TTL, so one late refresh never lets a live lease expire.
    this.timer = setInterval(
      () => this.sync(),
      Math.max(100, Math.floor(options.bus.leaseTtlMs / 3)),
    );
    this.timer.unref();
    // Back from an outage: the leases held here are written again at once (they may have
    // expired meanwhile), before a bridge with mirrors only may take them (mayClaim).
    options.bus.onReconnect(() => {
      this.backAt = Date.now();
      this.sync();
    });
    this.sync();
    void this.watchLeases();
  }

  /** The bridge holding the desktop's control window, when it is another one. */
  async holder(desktopId: string): Promise<RemoteHolder | undefined> {
    const known = this.known.get(leaseKey(desktopId));
    if (known !== undefined) return known;
    let kv: KV;
    try {
      kv = await this.options.bus.leases();
      const entry = await kv.get(leaseKey(desktopId));
      if (entry === null || entry.operation !== 'PUT') return undefined;
      const parsed = this.options.bus.openValue(ControlLease, entry, this.options.bus.leaseTtlMs);
      if (!parsed.ok) {
        this.options.bus.dropped.warn(
          { desktopId, error: parsed.error },
          'site: a lease failed its seal or schema',
        );
        return undefined;
      }
      // A lease of this bridge while it has no control window: stale, about to be deleted.
      if (parsed.message.bridge === this.options.bus.bridgeId) return undefined;
      return {
        bridge: parsed.message.bridge,
        headless: parsed.message.headless,
      };
    } catch (err) {
      // NATS unreachable: no window can be reached (fail closed).
      this.options.logger.warn({ desktopId, err: errorMessage(err) }, 'site: no lease readable');
      return undefined;
    }
  }

  /** Whether another bridge holds the desktop's lease, as the watch last told (no trip). */
  heldElsewhere(desktopId: string): boolean {
    return this.known.has(leaseKey(desktopId));
  }

  /**
   * The holder the watch tells within `waitMs` (at once if it knows one already); undefined when
   * none is told by then, or once `stop` says so (checked every STOP_CHECK_MS) or `signal` aborts.
   */
  async told(
    desktopId: string,
    waitMs: number,
    stop: () => boolean,
    signal?: AbortSignal,
  ): Promise<RemoteHolder | undefined> {
    const key = leaseKey(desktopId);
    const known = this.known.get(key);
    if (known !== undefined || signal?.aborted === true || this.closed) return known;
    await new Promise<void>((resolve) => {
      const listeners = this.waiting.get(key) ?? new Set<() => void>();
      this.waiting.set(key, listeners);
      const done = (): void => {
        clearTimeout(timer);
        clearInterval(check);
        signal?.removeEventListener('abort', done);
        listeners.delete(done);
        if (listeners.size === 0 && this.waiting.get(key) === listeners) this.waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      const check = setInterval(() => {
        if (stop()) done();
      }, STOP_CHECK_MS);
      timer.unref();
      check.unref();
      signal?.addEventListener('abort', done, { once: true });
      listeners.add(done);
    });
    return this.known.get(key);
  }

  /** The holder of this desktop's lease did not answer: ask the bucket next time. */
  forget(desktopId: string): void {
    this.tell(leaseKey(desktopId), undefined);
  }

  /**
   * Keeps (or, undefined, forgets) another bridge's lease of a key; says whether the desktop's
   * control window changed place (a refresh by the same bridge does not), telling holderChanged.
   */
  private tell(key: string, holder: RemoteHolder | undefined): boolean {
    const before = this.known.get(key);
    if (holder === undefined) {
      if (!this.known.delete(key)) return false;
    } else {
      this.known.set(key, holder);
      if (before?.bridge === holder.bridge) return false;
    }
    this.options.holderChanged?.(desktopOfKey(key));
    return true;
  }

  /** Gives up every lease at once: another bridge's window can take over without waiting. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    for (const listeners of [...this.waiting.values()]) for (const wake of [...listeners]) wake();
    this.watcher?.stop();
    await this.syncing;
    const kv = await this.options.bus.leases().catch(() => undefined);
    if (kv !== undefined)
      await Promise.all(
        [...this.held].map(([desktopId, lease]) =>
          kv.delete(leaseKey(desktopId), { previousSeq: lease.revision }).catch(() => undefined),
        ),
      );
    this.held.clear();
  }

  /** Follows the bucket (again after NATS comes back), keeping `known`. */
  private async watchLeases(): Promise<void> {
    const { bus, logger } = this.options;
    while (!this.closed) {
      try {
        const kv = await bus.leases();
        this.watcher = await kv.watch({ key: 'control.>' });
        for await (const entry of this.watcher) {
          const parsed =
            entry.operation === 'PUT'
              ? bus.openValue(ControlLease, entry, bus.leaseTtlMs)
              : undefined;
          if (parsed?.ok === true && parsed.message.bridge !== bus.bridgeId) {
            this.tell(entry.key, {
              bridge: parsed.message.bridge,
              headless: parsed.message.headless,
            });
            for (const wake of [...(this.waiting.get(entry.key) ?? [])]) wake();
          } else if (this.tell(entry.key, undefined)) this.sync(); // given up: a window here may take it
        }
      } catch (err) {
        if (!this.closed) logger.warn({ err: errorMessage(err) }, 'site: lease watch ended');
      }
      for (const key of [...this.known.keys()]) this.tell(key, undefined);
      if (!this.closed) await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** Keeps a lease for every desktop whose control window is here, and only those. */
  private sync(): void {
    if (this.closed || this.syncQueued) return;
    this.syncQueued = true;
    this.syncing = this.syncing
      .then(() => {
        this.syncQueued = false;
        return this.syncOnce();
      })
      .catch((err: unknown) => {
        this.options.logger.warn({ err: errorMessage(err) }, 'site: control leases not kept');
      });
  }

  private async syncOnce(): Promise<void> {
    // While the bus is away nothing is asked of the bucket: a request made now would only time
    // out after the bus is back, holding up the sync that writes the leases again (onReconnect).
    if (this.closed || this.options.bus.awaySince() !== undefined) return;
    const kv = await this.options.bus.leases();
    const planes = await this.options.planes.loaded();
    const seen = new Set<string>();
    for (const plane of planes) {
      seen.add(plane.desktopId);
      if (!this.watched.has(plane)) {
        this.watched.add(plane);
        // A window that comes or goes is told to the site at once, not at the next refresh.
        plane.hub.listen({ windowsChanged: () => this.sync() });
      }
      const control = plane.hub.control;
      if (control !== undefined) {
        if (!(await this.keep(kv, plane.desktopId, control.headless))) plane.hub.yieldControl();
        continue;
      }
      await this.release(kv, plane.desktopId);
      // Windows here, the control window nowhere: one here takes it (and the lease) — not just
      // after the bus came back, while the bridge that held it takes it again.
      if (
        plane.hub.size > 0 &&
        this.mayClaim() &&
        (await this.free(kv, plane.desktopId)) &&
        plane.hub.claimControl()
      ) {
        const claimed = plane.hub.control;
        if (claimed !== undefined && !(await this.keep(kv, plane.desktopId, claimed.headless)))
          plane.hub.yieldControl();
      }
    }
    for (const desktopId of this.held.keys())
      if (!seen.has(desktopId)) await this.release(kv, desktopId);
  }

  /**
   * Whether a free lease may be taken by a window that was not the control window: not during
   * the grace after the bus came back (a lease that expired while it was away is its holder's
   * to take again: its window stayed control). A genuine race still goes to the first creator.
   */
  private mayClaim(): boolean {
    const graceMs = RECLAIM_GRACE_TTLS * this.options.bus.leaseTtlMs;
    return this.backAt === undefined || Date.now() - this.backAt >= graceMs;
  }

  /**
   * Whether nobody holds the desktop's lease (an expired one is gone from the bucket). A lease of
   * a bridge that no longer listens on the site's NATS (it died: NATS says nobody is there) is
   * deleted at once rather than left to expire, so a window here takes over within moments.
   */
  private async free(kv: KV, desktopId: string): Promise<boolean> {
    const key = leaseKey(desktopId);
    const entry = await kv.get(key);
    let free = entry === null || entry.operation !== 'PUT';
    if (!free && entry !== null) {
      const { bus } = this.options;
      const lease = bus.openValue(ControlLease, entry, bus.leaseTtlMs);
      if (lease.ok && (await this.gone(lease.message.bridge))) {
        await kv.delete(key, { previousSeq: entry.revision }).catch(() => undefined);
        this.options.logger.info(
          { desktopId, bridge: lease.message.bridge },
          'site: removed the control lease of a bridge that is gone',
        );
        free = true;
      }
    }
    if (free) this.tell(key, undefined);
    return free;
  }

  /** Whether NATS has nobody listening at `bridge`'s subjects (it died or left the site). */
  private async gone(bridge: string): Promise<boolean> {
    const { bus, logger } = this.options;
    if (bridge === bus.bridgeId) return false;
    // Silent (slow, or someone without the site's key listening there) is not gone: the lease
    // then expires by itself within its TTL if its bridge is dead.
    return (await pingBridge(bus, bridge, PING_TIMEOUT_MS, logger)) === 'gone';
  }

  /**
   * Takes or refreshes the lease; false only when another bridge holds it (its window came
   * first). While NATS is away the window here stays control (fail over what it can alone).
   */
  private async keep(kv: KV, desktopId: string, headless: boolean): Promise<boolean> {
    const key = leaseKey(desktopId);
    const value = this.options.bus.seal(key, {
      bridge: this.options.bus.bridgeId,
      headless,
    });
    const mine = this.held.get(desktopId);
    try {
      const revision =
        mine === undefined
          ? await kv.create(key, value)
          : await kv.update(key, value, mine.revision);
      if (mine === undefined)
        this.options.logger.info({ desktopId }, 'site: holds the control window of a desktop');
      this.held.set(desktopId, { revision, headless });
      return true;
    } catch (err) {
      // The bus is away: nothing can be told; the lease is written again once it is back.
      if (this.options.bus.awaySince() !== undefined) throw err;
      // Another bridge holds it (its window came first), or ours expired (and was taken).
      this.held.delete(desktopId);
      const entry = await kv.get(key).catch(() => null);
      // Ours expired and nobody took it (the bus was away longer than the TTL): taken again now.
      if (entry === null || entry.operation !== 'PUT')
        return mine === undefined || (await this.keep(kv, desktopId, headless));
      const other = this.options.bus.openValue(ControlLease, entry, this.options.bus.leaseTtlMs);
      return !(other.ok && other.message.bridge !== this.options.bus.bridgeId);
    }
  }

  private async release(kv: KV, desktopId: string): Promise<void> {
    const mine = this.held.get(desktopId);
    if (mine === undefined) return;
    this.held.delete(desktopId);
    await kv.delete(leaseKey(desktopId), { previousSeq: mine.revision }).catch(() => undefined);
    this.options.logger.info({ desktopId }, 'site: gave up the control window of a desktop');
  }
}

/** The lease's key: the desktop id in hex (ids are base64url; keys take fewer characters). */
export function leaseKey(desktopId: string): string {
  return `control.${Buffer.from(desktopId).toString('hex')}`;
}

/** The desktop id of a lease's key (leaseKey's inverse). */
function desktopOfKey(key: string): string {
  return Buffer.from(key.slice('control.'.length), 'hex').toString();
}
