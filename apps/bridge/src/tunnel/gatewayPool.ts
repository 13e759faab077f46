// The gateways a site's bridges share (--gateways): `overlay-companion gateway` instances (VNC,
// reached with the pool secret) and Apache guacd instances (VNC and RDP). Each desktop's new
// connection goes to a healthy member that speaks its protocol, the one with the fewest
// connections the site knows of (ties: the order given); a window joining a running connection
// goes to the member where it lives, read from the places every bridge can read
// (gatewayPlaces.ts: NATS key-value when the site has NATS, memory otherwise), each signed with
// the pool secret so that NATS credentials alone cannot send a window to another desktop's
// connection. A member that
// refuses a connection, or a health probe (a TCP connect every PROBE_INTERVAL_MS; for members
// written gateways:// or guacds://, the same TLS handshake as a real link: poolTls.ts), is taken
// out until a probe reaches it again; its desktops' windows lose their tunnels and, reconnecting,
// open on another member. A member whose TLS fails is out with the reason in words (certificate
// not trusted, wrong name, plaintext, ...), never reached in plaintext instead. health() tells
// /readyz which members are out, since when and why.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { connect } from 'node:net';
import type { Logger } from 'pino';
import { GuacStatus } from '@overlay-companion/guac';
import type { GuacdAddress, TunnelConfig } from '../config.js';
import type { TunnelTarget } from './tunnelSession.js';
import { MemoryGatewayPlaces, type GatewayPlace, type GatewayPlaces } from './gatewayPlaces.js';
import { TunnelStartError, connectGuacd } from './upstream.js';
import { TLS_FAILURES } from './poolTls.js';

type PoolConfig = NonNullable<TunnelConfig['gatewayPool']>;
export type PoolMember = PoolConfig['members'][number];

/** How often every member is probed (a TCP connect; our gateway closes such a probe silently). */
export const PROBE_INTERVAL_MS = 2_000;
/** A probe that has not connected by then counts as a failure. */
const PROBE_TIMEOUT_MS = 1_500;

/** Why a member is out of the pool, in words /readyz may show (no host, port or error text). */
export const OUT_BECAUSE = {
  probe: 'its health probe could not connect',
  refused: 'it refused a connection',
  ...TLS_FAILURES,
} as const;

/** One member as /readyz tells it: its place in --gateways, not its address. */
export interface PoolMemberHealth {
  /** 1-based position in --gateways. */
  position: number;
  kind: PoolMember['kind'];
  /** Undefined while the member is in the pool. */
  out?: { since: number; because: keyof typeof OUT_BECAUSE };
}

/** "host:port": a member's name in places and logs. */
export function memberKey(member: { host: string; port: number }): string {
  return `${member.host}:${String(member.port)}`;
}

export class GatewayPool {
  /** Members out of the pool, with since when and why. */
  private readonly down = new Map<string, NonNullable<PoolMemberHealth['out']>>();
  private readonly byKey = new Map<string, PoolMember>();
  /** Connections being opened here on each member, not yet in the places. */
  private readonly opening = new Map<string, number>();
  private places: GatewayPlaces = new MemoryGatewayPlaces();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly config: PoolConfig,
    private readonly logger: Logger,
  ) {
    for (const member of config.members) this.byKey.set(memberKey(member), member);
    this.timer = setInterval(() => void this.probeAll(), PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  /** The site's shared record of where connections live (the site's NATS), once joined. */
  usePlaces(places: GatewayPlaces): void {
    this.places = places;
  }

  /**
   * Whether a desktop is the pool's to place: every one but a VNC server on a Unix socket of this
   * machine (a local desktop, which only the bridge's embedded gateway can reach).
   */
  covers(target: TunnelTarget): boolean {
    const { protocol, params } = target.connection;
    return !(protocol === 'vnc' && (params.hostname ?? '').startsWith('/'));
  }

  /** The address to connect to a member at (our gateways: with the pool secret). */
  addressOf(member: PoolMember): GuacdAddress {
    const { host, port, tls } = member;
    return {
      host,
      port,
      ...(member.kind === 'gateway' && this.config.secret !== undefined
        ? { secret: this.config.secret }
        : {}),
      ...(tls === undefined ? {} : { tls }),
    };
  }

  /** Where a desktop's running connection lives, if on a member that is up. */
  async placeOf(
    desktopId: string,
  ): Promise<{ member: PoolMember; connectionId: string } | undefined> {
    const place = await this.places.get(desktopId);
    const member = place === undefined ? undefined : this.byKey.get(place.member);
    if (place === undefined || member === undefined || this.down.has(place.member))
      return undefined;
    if (!this.signedByABridge(desktopId, place)) {
      this.logger.warn({ desktopId }, 'gateway pool: a place without a valid signature, ignored');
      return undefined;
    }
    return { member, connectionId: place.connectionId };
  }

  /** The healthy member with the least load that speaks `protocol`, or a start error. */
  async pick(protocol: 'vnc' | 'rdp', tried: ReadonlySet<string>): Promise<PoolMember> {
    const loads = await this.places.loads();
    let best: PoolMember | undefined;
    let bestLoad = Infinity;
    for (const [key, member] of this.byKey) {
      if (this.down.has(key) || tried.has(key)) continue;
      // Our gateway speaks VNC only; RDP needs Apache guacd.
      if (protocol === 'rdp' && member.kind !== 'guacd') continue;
      const load = (loads.get(key) ?? 0) + (this.opening.get(key) ?? 0);
      if (load < bestLoad) {
        best = member;
        bestLoad = load;
      }
    }
    if (best === undefined)
      throw new TunnelStartError(
        `No gateway of the pool can take a ${protocol.toUpperCase()} connection now (${this.describeHealth()}). Start one, or check --gateways.`,
        GuacStatus.UPSTREAM_UNAVAILABLE,
      );
    return best;
  }

  /** Counts a connection being opened on a member until it is placed or failed. */
  opened(member: PoolMember): () => void {
    const key = memberKey(member);
    this.opening.set(key, (this.opening.get(key) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.opening.get(key) ?? 1) - 1;
      if (left > 0) this.opening.set(key, left);
      else this.opening.delete(key);
    };
  }

  /**
   * Opens a desktop's new connection with `open` on the least-loaded healthy member that speaks
   * its protocol; a member that refuses is out of the pool, and the next one is tried.
   */
  async openOnLeastLoaded<T>(
    asked: TunnelTarget,
    open: (target: TunnelTarget) => Promise<T>,
  ): Promise<T> {
    const tried = new Set<string>();
    for (;;) {
      const member = await this.pick(asked.connection.protocol, tried);
      const target: TunnelTarget = { ...asked, guacd: this.addressOf(member) };
      const done = this.opened(member);
      try {
        return await open(target);
      } catch (err) {
        if (!this.refused(target, err)) throw err;
        tried.add(memberKey(member));
      } finally {
        done();
      }
    }
  }

  /**
   * Where a desktop with no connection is placed for a short connection of the bridge's own (a
   * resize): a member, when the pool covers it; else where its record says.
   */
  async place(asked: TunnelTarget): Promise<TunnelTarget> {
    if (!this.covers(asked)) return asked;
    const member = await this.pick(asked.connection.protocol, new Set());
    return { ...asked, guacd: this.addressOf(member) };
  }

  /** True when `err` says a pool member could not be reached (and it is now out of the pool). */
  refused(target: TunnelTarget, err: unknown): boolean {
    if ('path' in target.guacd) return false;
    const unreachable =
      err instanceof TunnelStartError &&
      (err.status === GuacStatus.UPSTREAM_NOT_FOUND || err.status === GuacStatus.UPSTREAM_TIMEOUT);
    if (unreachable) this.markDown(target.guacd, err);
    return unreachable;
  }

  /** A desktop's connection runs on a member (opened or joined here): kept while windows are on it. */
  async hold(desktopId: string, place: GatewayPlace): Promise<void> {
    const mac = this.mac(desktopId, place);
    const signed = mac === undefined ? place : { ...place, mac };
    await this.places.hold(desktopId, signed).catch((err: unknown) => {
      this.logger.warn({ desktopId, err }, 'gateway pool: the connection could not be recorded');
    });
  }

  /** This bridge's last window on the desktop's connection left. */
  release(desktopId: string, place: GatewayPlace): void {
    void this.places.release(desktopId, place).catch(() => undefined);
  }

  /** The desktop's connection there has ended: the next window opens a new one. */
  forget(desktopId: string, member: { host: string; port: number }, connectionId: string): void {
    void this.places
      .forget(desktopId, { member: memberKey(member), connectionId })
      .catch(() => undefined);
  }

  /**
   * A member refused a connection (`why`: the error, or words): out of the pool until a probe
   * reaches it. A TLS failure is told as such.
   */
  markDown(
    member: { host: string; port: number },
    why: string | Error,
    because: keyof typeof OUT_BECAUSE = 'refused',
  ): void {
    if (why instanceof TunnelStartError && why.tlsFailure !== undefined) because = why.tlsFailure;
    if (why instanceof Error) why = why.message;
    const key = memberKey(member);
    if (!this.byKey.has(key) || this.down.has(key)) return;
    this.down.set(key, { since: Date.now(), because });
    this.logger.warn({ gateway: key, why }, 'gateway pool: a gateway is out of the pool');
  }

  /** Whether a member is in the pool now (for tests and /readyz words). */
  isUp(member: { host: string; port: number }): boolean {
    return !this.down.has(memberKey(member));
  }

  /** Whether `address` is a member of the pool. */
  includes(address: { host: string; port: number }): boolean {
    return this.byKey.has(memberKey(address));
  }

  /** Every member in --gateways order, with whether it is out, since when and why. */
  health(): PoolMemberHealth[] {
    return [...this.byKey].map(([key, member], i) => {
      const out = this.down.get(key);
      return { position: i + 1, kind: member.kind, ...(out === undefined ? {} : { out }) };
    });
  }

  close(): void {
    clearInterval(this.timer);
    this.places.close?.();
  }

  /** The place's signature with the pool secret; undefined when the pool has none (guacd only). */
  private mac(desktopId: string, place: GatewayPlace): string | undefined {
    const { secret } = this.config;
    if (secret === undefined) return undefined;
    return createHmac('sha256', secret)
      .update(`${desktopId}\n${place.member}\n${place.connectionId}`)
      .digest('base64url');
  }

  private signedByABridge(desktopId: string, place: GatewayPlace): boolean {
    const expected = this.mac(desktopId, place);
    if (expected === undefined) return true;
    const given = Buffer.from(place.mac ?? '');
    const wanted = Buffer.from(expected);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }

  private describeHealth(): string {
    const up = this.byKey.size - this.down.size;
    return `${String(up)} of ${String(this.byKey.size)} up`;
  }

  private async probeAll(): Promise<void> {
    await Promise.all(
      [...this.byKey].map(async ([key, member]) => {
        const failure = await this.probe(member);
        if (failure === undefined && this.down.delete(key))
          this.logger.info({ gateway: key }, 'gateway pool: a gateway is back in the pool');
        if (failure !== undefined) this.markDown(member, failure, 'probe');
      }),
    );
  }

  /** Why the member cannot be reached now (undefined: it can); TLS as a real link. */
  private async probe(member: PoolMember): Promise<string | Error | undefined> {
    if (member.tls === undefined) return (await reachable(member)) ? undefined : OUT_BECAUSE.probe;
    try {
      (await connectGuacd(this.addressOf(member), PROBE_TIMEOUT_MS)).destroy();
      return undefined;
    } catch (err) {
      return err instanceof TunnelStartError && err.tlsFailure !== undefined
        ? err
        : OUT_BECAUSE.probe;
    }
  }
}

/** Whether a TCP connection to the member opens (closed at once, without a word). */
function reachable(member: PoolMember): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: member.host, port: member.port });
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => finish(false), PROBE_TIMEOUT_MS);
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}
