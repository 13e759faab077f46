// One connection per desktop: the first tunnel to a desktop opens it (`select vnc|rdp`), every
// further window — of any person who may see that desktop — joins it (`select $<id>`), so one
// window per monitor, and every watcher, shows the same session instead of opening new ones.
// Each desktop brings its own target (guacd or the embedded gateway, and its own connection
// parameters and credentials: two RDP desktops with two accounts on one xrdp host are two
// sessions), resolved when its connection opens. A connection lives as long as any of its
// users: guacd 1.6 and our gateway both keep it while someone is joined, whether or not the
// first (owner) user is still there, so the remaining windows keep working when the first one
// closes; a join that races the end of the connection (the last window just left) opens a fresh
// one instead. A desktop whose RDP account another open desktop uses is refused, not opened over
// it (rdpSessionTakeover.ts).
//
// The desktop's size is decided with its connection (desktopSizes.ts decides and applies it): at
// open, from the operator's size or the desktop's provider (its owner's layout; RDP: the session
// is opened at that size; VNC: the desktop is resized once it shows a different one), and later
// through resizeDesktop(), or restoreDesktopSize() when a layout is cleared. Browser `size`
// instructions never reach the server (tunnelSession.ts drops them).
//
// With a gateway pool (--gateways), a desktop the pool can reach (all but local desktops on Unix
// sockets) is opened on the pool's least-loaded healthy member instead, and joined where the
// site's places say its connection lives (another bridge may have opened it); a member that
// refuses is taken out of the pool and the connection opened on another (gatewayPool.ts picks
// the member and takes it out).
import type { Logger } from 'pino';
import { describeGuacd, type ConnectionConfig } from '../config.js';
import type { TunnelTarget } from './tunnelSession.js';
import {
  FALLBACK_DESKTOP_SIZE,
  sameSize,
  type DesktopSize,
  type DesktopSizeProvider,
} from '../desktops/desktopSize.js';
import { DesktopSizes, type ResizePlace } from './desktopSizes.js';
import { refuseSessionTakeover } from './rdpSessionTakeover.js';
import type { GatewayPool } from './gatewayPool.js';
import { memberKey } from './gatewayPool.js';
import type { GatewayPlace } from './gatewayPlaces.js';
import { isGoneConnection, openUpstream, type OpenedUpstream } from './upstream.js';
import { sharedVncParams, type ResizeOutcome } from './vncResizer.js';

export type { ResizeOutcome } from './vncResizer.js';

/** What a desktop's connection needs from each tunnel on it. */
export interface ConnectionMember {
  /** Sends one instruction to the desktop server on this tunnel's upstream; false if closed. */
  sendUpstream(opcode: string, ...args: (string | number)[]): boolean;
}

/**
 * How to join a desktop's running connection as one more user (the recorder does): the server,
 * the `$<id>` to select, and the parameters and size a further window would send. The id is a
 * capability to join the desktop: kept in memory, never logged.
 */
export interface ConnectionJoin {
  guacd: TunnelTarget['guacd'];
  select: string;
  params: Record<string, string>;
  size: DesktopSize;
  timeoutMs: number;
}

/** Told when a desktop's connection opens (the first window) and ends (the last one left). */
export interface ConnectionObserver {
  connectionOpened(desktopId: string, join: ConnectionJoin): void;
  connectionEnded(desktopId: string): void;
}

export interface DesktopConnectionsOptions {
  /** Where and how to reach a desktop (a local one is started when it is not running). */
  target(desktopId: string): Promise<TunnelTarget>;
  handshakeTimeoutMs: number;
  /** The operator's size (--desktop-size); wins over everything. */
  operatorSize?: DesktopSize | undefined;
  /** The desktop's wanted size, e.g. from its owner's saved layout. */
  desiredDesktopSize?: DesktopSizeProvider | undefined;
  logger: Logger;
  /** Told when each desktop's connection opens and ends (the recorder). */
  observer?: ConnectionObserver | undefined;
  /** The site's gateway pool, for desktops on TCP servers (gatewayPool.ts). */
  pool?: GatewayPool | undefined;
}

export interface OpenedForDesktop extends OpenedUpstream {
  /** True when this tunnel joined the desktop's running connection. */
  joined: boolean;
}

interface Entry {
  connectionId: string | undefined;
  /** The target the running connection was opened with (joins and resizes use it too). */
  target: TunnelTarget | undefined;
  /** A new connection being opened; others wait for it and join. */
  opening: Promise<OpenedForDesktop> | undefined;
  /** open() calls in flight (the entry is kept while there are any). */
  pending: number;
  members: Set<ConnectionMember>;
  /** A decided size to apply once the new connection shows the desktop's size. */
  sizeToApply: DesktopSize | undefined;
  /** How to join the new connection, until the observer is told (after its first frame). */
  unannounced: ConnectionJoin | undefined;
  /** The pool place this bridge holds while its windows are on the connection. */
  held: GatewayPlace | undefined;
}

export class DesktopConnections {
  /** Connections by desktop id. */
  private readonly desktops = new Map<string, Entry>();
  /** Each desktop's size: decided, applied, last seen, its own (desktopSizes.ts). */
  private readonly sizes: DesktopSizes;
  /**
   * New connections to one server are opened one at a time, each once the last one is `ready`:
   * guacd forks a process per connection from a multithreaded daemon, and two `select`s in the
   * same instant left one of the children hung before it logged a line (seen with guacd 1.6.0 and
   * two RDP desktops opened together: that desktop never drew, and windows joining it waited
   * forever). Joins are not forks and are not held back.
   */
  private readonly opening = new Map<string, Promise<unknown>>();

  constructor(private readonly options: DesktopConnectionsOptions) {
    this.sizes = new DesktopSizes(options);
  }

  /** Opens the desktop's connection, or joins it when there is one. */
  async open(desktopId: string): Promise<OpenedForDesktop> {
    const entry = this.entryFor(desktopId);
    entry.pending += 1;
    try {
      for (let attempt = 0; ; attempt++) {
        while (entry.opening !== undefined) await entry.opening.catch(() => undefined);
        if (entry.connectionId === undefined) await this.findPlaced(desktopId, entry);
        const id = entry.connectionId;
        if (id === undefined) {
          const opening = this.openNew(desktopId, entry);
          entry.opening = opening;
          try {
            return await opening;
          } finally {
            if (entry.opening === opening) entry.opening = undefined;
          }
        }
        const target = entry.target ?? (await this.options.target(desktopId));
        try {
          const opened = await openUpstream(target.guacd, {
            select: id,
            params: this.params(target.connection),
            size: this.sizes.last(desktopId) ?? FALLBACK_DESKTOP_SIZE,
            timeoutMs: this.options.handshakeTimeoutMs,
          });
          this.hold(desktopId, entry, target, id);
          return { ...opened, joined: true };
        } catch (err) {
          // The connection ended between our last look and the join (or, in a pool, its
          // gateway died: taken out of the pool): open a fresh one.
          const unreachable = this.options.pool?.refused(target, err) ?? false;
          const gone = isGoneConnection(err);
          if (gone && !('path' in target.guacd))
            this.options.pool?.forget(desktopId, target.guacd, id);
          if (attempt > 0 || !(gone || unreachable)) throw err;
          if (entry.connectionId === id) {
            entry.connectionId = undefined;
            if (entry.members.size === 0) entry.target = undefined;
          }
        }
      }
    } finally {
      entry.pending -= 1;
    }
  }

  /** A tunnel relays on the connection now (call right after open() resolved). */
  attach(desktopId: string, member: ConnectionMember): void {
    this.entryFor(desktopId).members.add(member);
  }

  /** A tunnel has ended (or gave up before relaying). */
  release(desktopId: string, member: ConnectionMember): void {
    const entry = this.desktops.get(desktopId);
    if (entry === undefined) return;
    entry.members.delete(member);
    if (entry.members.size > 0) return;
    // The server ends a connection when its last user leaves: nothing left to join. Users of
    // the bridge's own (the recorder) leave with the last window.
    if (entry.connectionId !== undefined && entry.unannounced === undefined)
      this.options.observer?.connectionEnded(desktopId);
    if (entry.held !== undefined) this.options.pool?.release(desktopId, entry.held);
    entry.held = undefined;
    entry.unannounced = undefined;
    entry.connectionId = undefined;
    entry.target = undefined;
    entry.sizeToApply = undefined;
    if (entry.pending === 0) this.desktops.delete(desktopId);
  }

  /** The desktop reported its size (`size` for layer 0) on one of the desktop's tunnels. */
  sawSize(desktopId: string, size: DesktopSize): void {
    this.sizes.saw(desktopId, size);
    const entry = this.desktops.get(desktopId);
    const wanted = entry?.sizeToApply;
    if (entry === undefined || wanted === undefined) return;
    entry.sizeToApply = undefined;
    if (!sameSize(wanted, size)) void this.apply(desktopId, wanted);
  }

  /**
   * A frame of the desktop reached a window. The observer hears of a new connection only now:
   * a user joining before the server has painted anything (the gateway before its first
   * framebuffer update) may be sent no picture until the screen next changes.
   */
  framePainted(desktopId: string): void {
    const entry = this.desktops.get(desktopId);
    const join = entry?.unannounced;
    if (entry === undefined || join === undefined) return;
    entry.unannounced = undefined;
    this.options.observer?.connectionOpened(desktopId, {
      ...join,
      size: this.sizes.last(desktopId) ?? join.size,
    });
  }

  /** The desktop's size as the bridge last saw it on this desktop's connection. */
  desktopSize(desktopId: string): DesktopSize | undefined {
    return this.sizes.last(desktopId);
  }

  /** Whether any tunnel relays on the desktop's connection now. */
  inUse(desktopId: string): boolean {
    return (this.desktops.get(desktopId)?.members.size ?? 0) > 0;
  }

  /**
   * Applies a newly decided size (e.g. a saved layout) to the desktop. The operator's
   * --desktop-size, when set, stays. VNC desktops are resized at once (they outlive
   * connections); an RDP session only while someone is connected — otherwise its next
   * connection opens at the provider's size.
   */
  async resizeDesktop(desktopId: string, size: DesktopSize): Promise<ResizeOutcome> {
    const checked = this.sizes.check(size);
    if ('outcome' in checked) return checked.outcome;
    return this.apply(desktopId, checked.apply);
  }

  /**
   * Nothing decides the desktop's size any more (its layout was cleared): it goes back to the
   * size it had before the bridge first resized it — unless the operator's size or the
   * provider (a record's fixed size) still decides one, which it takes instead.
   */
  async restoreDesktopSize(desktopId: string): Promise<ResizeOutcome> {
    const size = await this.sizes.toRestore(desktopId);
    if (size === undefined)
      return {
        applied: false,
        reason: 'The bridge has not resized this desktop since it started: it keeps its size.',
      };
    const outcome = await this.resizeDesktop(desktopId, size);
    if (outcome.applied) this.sizes.restored(desktopId);
    return outcome;
  }

  /** Applies a checked size over the desktop's connection, or one of the bridge's own. */
  private apply(desktopId: string, size: DesktopSize): Promise<ResizeOutcome> {
    const place: ResizePlace = {
      target: this.desktops.get(desktopId)?.target,
      placed: () => this.placedTarget(desktopId),
      sizeSender: () => {
        const members = [...(this.desktops.get(desktopId)?.members ?? [])];
        return (to) => members.some((m) => m.sendUpstream('size', to.width, to.height));
      },
    };
    return this.sizes.apply(desktopId, size, place);
  }

  private entryFor(key: string): Entry {
    let entry = this.desktops.get(key);
    if (entry === undefined) {
      entry = {
        connectionId: undefined,
        target: undefined,
        opening: undefined,
        pending: 0,
        members: new Set(),
        sizeToApply: undefined,
        unannounced: undefined,
        held: undefined,
      };
      this.desktops.set(key, entry);
    }
    return entry;
  }

  private async openNew(desktopId: string, entry: Entry): Promise<OpenedForDesktop> {
    const asked = await this.options.target(desktopId);
    refuseSessionTakeover(desktopId, asked, this.desktops);
    const pool = this.options.pool;
    if (pool === undefined || !pool.covers(asked)) return this.openNewOn(desktopId, entry, asked);
    return pool.openOnLeastLoaded(asked, async (target) => {
      const opened = await this.openNewOn(desktopId, entry, target);
      this.hold(desktopId, entry, target, opened.connectionId);
      return opened;
    });
  }

  private async openNewOn(
    desktopId: string,
    entry: Entry,
    target: TunnelTarget,
  ): Promise<OpenedForDesktop> {
    const decided = await this.sizes.decided(desktopId);
    const { protocol } = target.connection;
    // An RDP session is opened at the decided size, else at the size it last had.
    const size = decided ?? this.sizes.last(desktopId) ?? FALLBACK_DESKTOP_SIZE;
    const server = describeGuacd(target.guacd);
    const previous = this.opening.get(server) ?? Promise.resolve();
    const attempt = previous.then(() =>
      openUpstream(target.guacd, {
        select: protocol,
        params: this.params(target.connection, protocol === 'rdp' ? size : undefined),
        size,
        timeoutMs: this.options.handshakeTimeoutMs,
      }),
    );
    const settled = attempt.then(
      () => undefined,
      () => undefined,
    );
    this.opening.set(server, settled);
    void settled.then(() => {
      if (this.opening.get(server) === settled) this.opening.delete(server);
    });
    const opened = await attempt;
    entry.connectionId = opened.connectionId;
    entry.target = target;
    entry.sizeToApply = decided;
    if (this.options.observer !== undefined)
      entry.unannounced = {
        guacd: target.guacd,
        select: opened.connectionId,
        params: this.params(target.connection),
        size,
        timeoutMs: this.options.handshakeTimeoutMs,
      };
    return { ...opened, joined: false };
  }

  /**
   * With a pool: the connection another bridge (or this one, earlier) opened on a member, from
   * the site's places, becomes this entry's to join.
   */
  private async findPlaced(desktopId: string, entry: Entry): Promise<void> {
    const pool = this.options.pool;
    if (pool === undefined) return;
    const asked = await this.options.target(desktopId);
    if (!pool.covers(asked) || entry.connectionId !== undefined) return;
    const place = await pool.placeOf(desktopId);
    if (place === undefined || entry.connectionId !== undefined) return;
    entry.connectionId = place.connectionId;
    entry.target = { ...asked, guacd: pool.addressOf(place.member) };
  }

  /** A desktop without a connection, placed for a short connection of the bridge's own (resize). */
  private async placedTarget(desktopId: string): Promise<TunnelTarget> {
    const asked = await this.options.target(desktopId);
    return this.options.pool?.place(asked) ?? asked;
  }

  /** Records that this bridge's windows are on the connection at its pool member. */
  private hold(desktopId: string, entry: Entry, target: TunnelTarget, connectionId: string): void {
    const pool = this.options.pool;
    if (pool === undefined || 'path' in target.guacd) return;
    if (entry.held?.connectionId === connectionId) return;
    entry.held = { member: memberKey(target.guacd), connectionId };
    void pool.hold(desktopId, entry.held);
  }

  /** Where a desktop's running connection leads (the link watch probes it); undefined if none. */
  targetOf(desktopId: string): TunnelTarget | undefined {
    return this.desktops.get(desktopId)?.target;
  }

  private params(connection: ConnectionConfig, rdpSize?: DesktopSize): Record<string, string> {
    if (connection.protocol === 'vnc') return sharedVncParams(connection);
    const params = { ...connection.params };
    if (rdpSize !== undefined) {
      params.width = String(rdpSize.width);
      params.height = String(rdpSize.height);
    }
    return params;
  }
}
