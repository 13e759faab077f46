// One desktop connection per signed-in person: the first of a person's tunnels opens it
// (`select vnc|rdp`), every further window joins it (`select $<id>`), so one window per monitor
// shows the same session instead of opening new desktops. Different people get VNC connections
// of their own. RDP is the exception: the bridge logs in with one RDP account, and xrdp gives an
// account one session, which a second RDP connection takes over — the first connection stays
// open but frozen, with no error (seen with xrdp 0.9.21) — so everyone on an RDP desktop shares
// one connection. A connection lives as long as any of its users: guacd 1.6 and our gateway
// both keep it while someone is joined, whether or not the first (owner) user is still there,
// so the remaining windows keep working when the first one closes; a join that races the end
// of the connection (the last window just left) opens a fresh one instead.
//
// The desktop's size is decided here (see desktopSize.ts): at open, from the operator's size or
// the person's provider (RDP: the session is opened at that size; VNC: the desktop is resized
// once it shows a different one, unless another person is using it then), and later through
// resizeDesktop(). Browser `size` instructions never reach the server (tunnelSession.ts drops
// them). The size each person's desktop last reported is kept for the layout editor.
import type { Logger } from 'pino';
import type { ConnectionConfig, GuacdAddress } from '../config.js';
import {
  FALLBACK_DESKTOP_SIZE,
  desktopSizeSchema,
  describeSize,
  sameSize,
  type DesktopSize,
  type DesktopSizeProvider,
} from './desktopSize.js';
import { isGoneConnection, openUpstream, type OpenedUpstream } from './upstream.js';
import {
  RESIZE_TIMEOUT_MS,
  resizeVncDesktop,
  sharedVncParams,
  type ResizeOutcome,
} from './vncResizer.js';

export type { ResizeOutcome } from './vncResizer.js';

/** How often an RDP resize is said again until the desktop reports a size. */
const RDP_RESIZE_RESEND_MS = 1_000;

/** What a person's connection needs from each tunnel on it. */
export interface ConnectionMember {
  /** Sends one instruction to the desktop server on this tunnel's upstream; false if closed. */
  sendUpstream(opcode: string, ...args: (string | number)[]): boolean;
}

export interface PersonConnectionsOptions {
  guacd: GuacdAddress;
  connection: ConnectionConfig;
  handshakeTimeoutMs: number;
  /** The operator's size (--desktop-size); wins over everything. */
  operatorSize?: DesktopSize | undefined;
  /** The person's wanted size, e.g. from their saved layout. */
  desiredDesktopSize?: DesktopSizeProvider | undefined;
  logger: Logger;
}

export interface OpenedForPerson extends OpenedUpstream {
  /** True when this tunnel joined the person's running connection. */
  joined: boolean;
}

interface Entry {
  connectionId: string | undefined;
  /** A new connection being opened; others wait for it and join. */
  opening: Promise<OpenedForPerson> | undefined;
  /** open() calls in flight (the entry is kept while there are any). */
  pending: number;
  members: Set<ConnectionMember>;
  /** A decided size to apply once the new connection shows the desktop's size. */
  sizeToApply: DesktopSize | undefined;
}

type SizeWaiter = (size: DesktopSize) => void;

/** The key of the one connection everyone on an RDP desktop shares. */
const SHARED_RDP = 'rdp:shared';

export class PersonConnections {
  /** Connections by key: the person's id (VNC), or SHARED_RDP. */
  private readonly people = new Map<string, Entry>();
  private readonly seen = new Map<string, DesktopSize>();
  private readonly sizeWaiters = new Map<string, Set<SizeWaiter>>();
  /** The size any connection of this bridge last reported (for RDP sessions without a decision). */
  private lastSeen: DesktopSize | undefined;

  constructor(private readonly options: PersonConnectionsOptions) {}

  /** Opens the person's connection, or joins it when there is one. */
  async open(personId: string): Promise<OpenedForPerson> {
    const entry = this.entryFor(this.keyOf(personId));
    entry.pending += 1;
    try {
      for (let attempt = 0; ; attempt++) {
        while (entry.opening !== undefined) await entry.opening.catch(() => undefined);
        const id = entry.connectionId;
        if (id === undefined) {
          const opening = this.openNew(personId, entry);
          entry.opening = opening;
          try {
            return await opening;
          } finally {
            if (entry.opening === opening) entry.opening = undefined;
          }
        }
        try {
          const opened = await openUpstream(this.options.guacd, {
            select: id,
            params: this.params(),
            size: this.seen.get(personId) ?? FALLBACK_DESKTOP_SIZE,
            timeoutMs: this.options.handshakeTimeoutMs,
          });
          return { ...opened, joined: true };
        } catch (err) {
          // The connection ended between our last look and the join: open a fresh one.
          if (attempt > 0 || !isGoneConnection(err)) throw err;
          if (entry.connectionId === id) entry.connectionId = undefined;
        }
      }
    } finally {
      entry.pending -= 1;
    }
  }

  /** A tunnel relays on the connection now (call right after open() resolved). */
  attach(personId: string, member: ConnectionMember): void {
    this.entryFor(this.keyOf(personId)).members.add(member);
  }

  /** A tunnel has ended (or gave up before relaying). */
  release(personId: string, member: ConnectionMember): void {
    const key = this.keyOf(personId);
    const entry = this.people.get(key);
    if (entry === undefined) return;
    entry.members.delete(member);
    if (entry.members.size > 0) return;
    // The server ends a connection when its last user leaves: nothing left to join.
    entry.connectionId = undefined;
    entry.sizeToApply = undefined;
    if (entry.pending === 0) this.people.delete(key);
  }

  /** The desktop reported its size (`size` for layer 0) on one of the person's tunnels. */
  sawSize(personId: string, size: DesktopSize): void {
    this.seen.set(personId, size);
    this.lastSeen = size;
    for (const waiter of this.sizeWaiters.get(personId) ?? []) waiter(size);
    const entry = this.people.get(this.keyOf(personId));
    const wanted = entry?.sizeToApply;
    if (entry === undefined || wanted === undefined) return;
    entry.sizeToApply = undefined;
    if (!sameSize(wanted, size)) void this.apply(personId, wanted);
  }

  /** The desktop's size as the bridge last saw it on this person's connection. */
  desktopSize(personId: string): DesktopSize | undefined {
    return this.seen.get(personId);
  }

  /** Keys of the connections with at least one tunnel relaying. */
  private inUse(): string[] {
    return [...this.people].filter(([, e]) => e.members.size > 0).map(([key]) => key);
  }

  private keyOf(personId: string): string {
    return this.options.connection.protocol === 'rdp' ? SHARED_RDP : personId;
  }

  /**
   * Applies a newly decided size (e.g. a saved layout) to the person's desktop. The operator's
   * --desktop-size, when set, stays. VNC desktops are resized at once (they outlive
   * connections); an RDP session only while the person is connected — otherwise their next
   * connection opens at the provider's size.
   */
  async resizeDesktop(personId: string, size: DesktopSize): Promise<ResizeOutcome> {
    const valid = desktopSizeSchema.safeParse(size);
    if (!valid.success) {
      return {
        applied: false,
        reason: `Not a desktop size: ${valid.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}.`,
      };
    }
    const operator = this.options.operatorSize;
    if (operator !== undefined) {
      return {
        applied: false,
        reason: `The operator fixed the desktop size at ${describeSize(operator)} (--desktop-size / OC_DESKTOP_SIZE).`,
        size: operator,
      };
    }
    return this.apply(personId, valid.data);
  }

  private async apply(personId: string, size: DesktopSize): Promise<ResizeOutcome> {
    const { connection, logger } = this.options;
    if (connection.protocol === 'vnc') {
      return resizeVncDesktop(
        {
          guacd: this.options.guacd,
          connection,
          handshakeTimeoutMs: this.options.handshakeTimeoutMs,
        },
        size,
        logger,
      );
    }
    // RDP: guacd sends a Display Update for any user's `size` (its resize-method).
    const current = this.seen.get(personId);
    if (sameSize(current, size)) return { applied: true, size };
    const members = [...(this.people.get(this.keyOf(personId))?.members ?? [])];
    const reported = this.nextSize(personId);
    const send = () => members.some((m) => m.sendUpstream('size', size.width, size.height));
    if (!send()) {
      reported.cancel();
      return {
        applied: false,
        reason:
          'The person has no open desktop connection; their next one opens at the decided size.',
      };
    }
    // guacd drops a Display Update while the session's display channel is still coming up
    // (right after a connect, seen under load): say it again until the desktop reports a size.
    const resend = setInterval(send, RDP_RESIZE_RESEND_MS);
    const reached = await reported.promise.finally(() => clearInterval(resend));
    if (reached === undefined) {
      return {
        applied: false,
        reason: `The RDP server did not take the size ${describeSize(size)} within ${RESIZE_TIMEOUT_MS / 1000} s.`,
      };
    }
    // guacd rounds RDP widths down to an even number: report what the desktop took.
    logger.info({ size: describeSize(reached) }, 'desktop resized');
    return { applied: true, size: reached };
  }

  /** The next size the person's desktop reports, or undefined after the resize timeout. */
  private nextSize(personId: string): {
    promise: Promise<DesktopSize | undefined>;
    cancel(): void;
  } {
    let settle: (size: DesktopSize | undefined) => void = () => undefined;
    const promise = new Promise<DesktopSize | undefined>((resolve) => (settle = resolve));
    const waiters = this.sizeWaiters.get(personId) ?? new Set<SizeWaiter>();
    this.sizeWaiters.set(personId, waiters);
    const done = (size: DesktopSize | undefined) => {
      clearTimeout(timer);
      waiters.delete(done);
      if (waiters.size === 0) this.sizeWaiters.delete(personId);
      settle(size);
    };
    const timer = setTimeout(() => done(undefined), RESIZE_TIMEOUT_MS);
    waiters.add(done);
    return { promise, cancel: () => done(undefined) };
  }

  private entryFor(key: string): Entry {
    let entry = this.people.get(key);
    if (entry === undefined) {
      entry = {
        connectionId: undefined,
        opening: undefined,
        pending: 0,
        members: new Set(),
        sizeToApply: undefined,
      };
      this.people.set(key, entry);
    }
    return entry;
  }

  private async openNew(personId: string, entry: Entry): Promise<OpenedForPerson> {
    const decided = await this.decidedSize(personId);
    const { protocol } = this.options.connection;
    // An RDP session is opened at the decided size, else at the size it last had.
    const size = decided ?? this.seen.get(personId) ?? this.lastSeen ?? FALLBACK_DESKTOP_SIZE;
    const opened = await openUpstream(this.options.guacd, {
      select: protocol,
      params: this.params(protocol === 'rdp' ? size : undefined),
      size,
      timeoutMs: this.options.handshakeTimeoutMs,
    });
    entry.connectionId = opened.connectionId;
    // Resizing a desktop someone else is looking at would pull it out from under them.
    const othersHere = this.inUse().some((key) => key !== this.keyOf(personId));
    entry.sizeToApply = decided !== undefined && !othersHere ? decided : undefined;
    return { ...opened, joined: false };
  }

  private params(rdpSize?: DesktopSize): Record<string, string> {
    const { connection } = this.options;
    if (connection.protocol === 'vnc') return sharedVncParams(connection);
    const params = { ...connection.params };
    if (rdpSize !== undefined) {
      params.width = String(rdpSize.width);
      params.height = String(rdpSize.height);
    }
    return params;
  }

  private async decidedSize(personId: string): Promise<DesktopSize | undefined> {
    if (this.options.operatorSize !== undefined) return this.options.operatorSize;
    const provider = this.options.desiredDesktopSize;
    if (provider === undefined) return undefined;
    try {
      const wanted = await provider(personId);
      if (wanted === undefined) return undefined;
      const valid = desktopSizeSchema.safeParse(wanted);
      if (valid.success) return valid.data;
      this.options.logger.warn(
        { wanted: `${String(wanted.width)}x${String(wanted.height)}` },
        'the desired desktop size is out of range; keeping the current size',
      );
      return undefined;
    } catch (err) {
      // A broken layout must not keep the person off their desktop: keep its current size.
      this.options.logger.warn({ err }, 'the desired desktop size could not be read');
      return undefined;
    }
  }
}
