// One bridge's link to its site's NATS: the connection (reconnecting by itself, forever, while the
// bridge runs), the subjects (every one under `oc.<site id>.`, the site id being the database's,
// so two sites never hear each other on one NATS), the broadcasts every bridge acts on, the
// subjects where this bridge takes forwarded calls, requests to another bridge (their waits:
// siteRequest.ts), and the site's key-value buckets (siteBuckets.ts: control leases, gateway
// places). Every payload is sealed with the site's key (siteSeal.ts) and opened and parsed with
// its schema (messages.ts) where it arrives; a message that fails either (forged, replayed, too
// old, malformed) is dropped and logged (a bounded number of lines a minute: dropWarnings.ts),
// never acted on. A bridge does not hear its own broadcasts (noEcho, and `from` is checked too).
import { randomBytes } from 'node:crypto';
import {
  connect,
  ErrorCode,
  Events,
  NatsError,
  type KV,
  type Msg,
  type NatsConnection,
  type Subscription,
} from 'nats';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { StartupError, errorMessage } from '../errors.js';
import { DropWarnings } from './dropWarnings.js';
import { SiteEvent, type SiteEventInput } from './messages.js';
import type { SiteConfig } from './siteConfig.js';
import type { SiteKeys } from './siteKeys.js';
import { openSiteBucket } from './siteBuckets.js';
import { NoAnswer, PendingRequests, type Asked } from './siteRequest.js';
import { SeenSeals, SITE_CLOCK_SKEW_MS, SiteSeal, type Opened } from './siteSeal.js';

export interface SiteBusOptions {
  config: SiteConfig;
  /** The database's site id (store: settings `site_id`). */
  siteId: string;
  logger: Logger;
  /** The site's keys (its database's): every message is sealed with them. */
  keys: SiteKeys;
  /** How long a control lease outlives its last refresh (the key-value bucket's TTL). */
  leaseTtlMs?: number;
}

/** How long a broadcast waits for the NATS server's acknowledgement before it goes on. */
const FLUSH_WAIT_MS = 1_000;

/**
 * What a call refused while the bus is away is told to wait before retrying: the client retries
 * every 250 ms (reconnectTimeWait), and the leases are seen again a moment after it is back.
 */
export const BUS_AWAY_RETRY_MS = 1_000;

/** Default lease TTL: a dead bridge's control windows are given up within this. */
export const DEFAULT_LEASE_TTL_MS = 3_000;

/**
 * What a bridge takes at its own subjects (each parsed with its schema in messages.ts); `reply`
 * is the prefix of the subjects where its requests are answered (request()).
 */
export type BridgeSubject =
  'call' | 'approve' | 'cancel' | 'answer' | 'ping' | 'overlays' | 'reply' | 'applied';

/**
 * What a broadcast is sealed for: its subject and, when it asks for "applied" answers, the reply
 * subject too (a space cannot be in a NATS subject), so nobody without the site's key can send
 * it again with another reply subject, nor strip it (siteAcks.ts).
 */
export function broadcastWhere(subject: string, reply: string | undefined): string {
  return reply === undefined || reply === '' ? subject : `${subject} ${reply}`;
}

/** `msg` is the broadcast as it came (its reply subject asks for "applied": siteAcks.ts). */
export type SiteEventHandler = (event: SiteEvent, msg: Msg) => void | Promise<void>;

export class SiteBus {
  /** This bridge's id in the site for this run (lease values and forwarded calls name it). */
  readonly bridgeId = `b${randomBytes(9)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')}`;
  readonly leaseTtlMs: number;
  private readonly prefix: string;
  private readonly subscriptions: Subscription[] = [];
  private readonly buckets = new Map<string, Promise<KV>>();
  private closed = false;
  /** Since when NATS has been away (undefined while connected), for /readyz. */
  private lostAt: number | undefined;
  private readonly reconnected = new Set<() => void>();
  private readonly sealer: SiteSeal;
  /** Replies to this bridge's requests seen so far (each subscription keeps its own). */
  private readonly seenReplies = new SeenSeals();
  /** Warnings of dropped messages, bounded per minute (siteAcks.ts and bridgePing.ts use it too). */
  readonly dropped: DropWarnings;
  /** This bridge's requests waiting for answers at its reply subjects. */
  private readonly requests: PendingRequests;

  private constructor(
    readonly nc: NatsConnection,
    private readonly options: SiteBusOptions,
  ) {
    this.prefix = `oc.${options.siteId}`;
    this.leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    this.sealer = new SiteSeal(options.keys);
    this.dropped = new DropWarnings(options.logger);
    const replyPrefix = `${this.bridgeSubject(this.bridgeId, 'reply')}.`;
    this.requests = new PendingRequests(replyPrefix, this.sealer, this.seenReplies, this.dropped);
    this.subscriptions.push(
      nc.subscribe(`${replyPrefix}*`, { callback: (_err, msg) => this.requests.replied(msg) }),
    );
    void this.watchStatus();
  }

  /** Connects to the site's NATS; a StartupError that says what to fix when it cannot. */
  static async join(options: SiteBusOptions): Promise<SiteBus> {
    const { config, logger } = options;
    const where = config.servers.join(', ');
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: config.servers,
        ...(config.user === undefined ? {} : { user: config.user, pass: config.pass }),
        ...(config.token === undefined ? {} : { token: config.token }),
        name: 'overlay-companion bridge',
        noEcho: true,
        // After the first connection: reconnect forever, the bridge serving what it can alone.
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        reconnectJitter: 100,
        pingInterval: 5_000,
        maxPingOut: 2,
        // No stack captured per request (two Errors each, ~90 µs of a forwarded call's CPU in a
        // profile): a failed request is reported by its code, never by its stack.
        noAsyncTraces: true,
        timeout: 5_000,
      });
    } catch (err) {
      throw new StartupError(joinFailure(err, where));
    }
    const bus = new SiteBus(nc, options);
    logger.info({ nats: where, bridgeId: bus.bridgeId }, 'site: joined');
    return bus;
  }

  subject(...parts: string[]): string {
    return [this.prefix, ...parts].join('.');
  }

  /** Where a bridge takes forwarded calls, mode approvals, cancellations, approval answers and pings. */
  bridgeSubject(bridgeId: string, what: BridgeSubject): string {
    return this.subject('bridge', bridgeId, what);
  }

  /**
   * Tells every other bridge of the site; settles once the NATS server has it, or after
   * FLUSH_WAIT_MS while NATS is away (the client sends it when NATS is back; meanwhile the
   * others' token cache lasts CACHE_MS at most). `reply`: where the others answer that they
   * applied it (siteAcks.ts). Never rejects.
   */
  async publish(event: SiteEventInput, reply?: string): Promise<void> {
    if (this.closed) return;
    try {
      const subject = this.subject('events');
      this.nc.publish(
        subject,
        this.seal(broadcastWhere(subject, reply), { ...event, from: this.bridgeId }),
        reply === undefined ? undefined : { reply },
      );
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), FLUSH_WAIT_MS);
      });
      const flushed = await Promise.race([this.nc.flush().then(() => 'flushed' as const), late]);
      clearTimeout(timer);
      if (flushed === 'late')
        this.options.logger.warn({ type: event.type }, 'site: NATS away, a broadcast waits for it');
    } catch (err) {
      this.options.logger.warn(
        { type: event.type, err: errorMessage(err) },
        'site: a broadcast could not be sent',
      );
    }
  }

  /**
   * The payload of `message` sealed with the site's key for `where` (the subject or key-value
   * key it goes to): the only way anything is sent.
   */
  seal(where: string, message: unknown): Uint8Array {
    return this.sealer.seal(where, message);
  }

  /**
   * Sends `message` to `subject` (sealed for it) and waits up to `timeoutMs` for the first answer
   * that opens and parses with `schema`: an answer that does not is dropped and logged, and the
   * wait goes on. Rejects with NoAnswer: 'no responders' at once when NATS has nobody at
   * `subject`, 'timeout', or 'closed' when this bridge leaves the site.
   */
  request<S extends z.ZodType>(
    subject: string,
    message: unknown,
    schema: S,
    timeoutMs: number,
  ): Asked<z.output<S>> {
    if (this.closed)
      return { answer: Promise.reject(new NoAnswer('closed')), fail: () => undefined };
    return this.requests.ask(schema, timeoutMs, (reply) =>
      this.nc.publish(subject, this.seal(subject, message), { reply }),
    );
  }

  /** The payload of the reply `message` to the request `msg`, sealed for its reply inbox. */
  sealReply(msg: Msg, message: unknown): Uint8Array {
    return this.sealer.seal(msg.reply ?? '', message);
  }

  /** A reply to this bridge's request, opened (once only) and parsed with `schema`. */
  openReply<S extends z.ZodType>(schema: S, reply: Msg): Opened<S> {
    return this.sealer.open(reply.subject, schema, reply.data, { seen: this.seenReplies });
  }

  /**
   * A key-value value, opened and parsed with `schema`. Values are re-read, so there is no
   * once-only check, but one older than the bucket's `ttlMs` (a value put back) is refused.
   */
  openValue<S extends z.ZodType>(
    schema: S,
    entry: { key: string; value: Uint8Array },
    ttlMs: number,
  ): Opened<S> {
    return this.sealer.open(entry.key, schema, entry.value, {
      maxAgeMs: ttlMs + SITE_CLOCK_SKEW_MS,
    });
  }

  /** Acts on every valid broadcast of the other bridges. */
  onEvent(handler: SiteEventHandler): void {
    this.listen(
      this.subject('events'),
      SiteEvent,
      (event, msg) => {
        if (event.from === this.bridgeId) return;
        return handler(event, msg);
      },
      (msg) => broadcastWhere(msg.subject, msg.reply),
    );
  }

  /**
   * Opens every message on `subject` and parses it with `schema`; `handle` sees only what passed.
   * A message that fails (not sealed with the site's key, too old, seen before, or not its
   * schema) is dropped and logged (with why, never its content).
   */
  listen<S extends z.ZodType>(
    subject: string,
    schema: S,
    handle: (message: z.output<S>, msg: Msg) => void | Promise<void>,
    /** What its messages are sealed for (default: the subject they came on). */
    whereOf: (msg: Msg) => string = (msg) => msg.subject,
  ): void {
    const seen = new SeenSeals();
    const subscription = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err !== null) {
          this.options.logger.warn(
            { subject, err: errorMessage(err) },
            'site: subscription failed',
          );
          return;
        }
        const parsed = this.sealer.open(whereOf(msg), schema, msg.data, { seen });
        if (!parsed.ok) {
          this.dropped.warn(
            { subject, error: parsed.error, bytes: msg.data.byteLength },
            'site: dropped a message that failed its seal or schema',
          );
          return;
        }
        // Acted on now, not a microtask later (on the way of every forwarded call).
        const failed = (error: unknown): void =>
          this.options.logger.warn(
            { subject, err: errorMessage(error) },
            'site: acting on a message failed',
          );
        try {
          const acting = handle(parsed.message, msg);
          if (acting instanceof Promise) acting.catch(failed);
        } catch (error) {
          failed(error);
        }
      },
    });
    this.subscriptions.push(subscription);
  }

  /** Told each time NATS is back after it was away (what was said meanwhile may be lost). */
  onReconnect(listener: () => void): void {
    this.reconnected.add(listener);
  }

  /** The bucket of control leases (created on first use; entries live `leaseTtlMs`). */
  leases(): Promise<KV> {
    return this.bucket('control', this.leaseTtlMs);
  }

  /**
   * The site's key-value bucket `name` (`oc_<site id>_<name>`, entries living `ttlMs`), created on
   * first use with as many copies as the cluster can keep (siteBuckets.ts).
   */
  bucket(name: string, ttlMs: number): Promise<KV> {
    let opened = this.buckets.get(name);
    if (opened === undefined) {
      opened = openSiteBucket(
        this.nc,
        `oc_${this.options.siteId}_${name}`,
        ttlMs,
        this.options.logger,
      );
      this.buckets.set(name, opened);
      opened.catch(() => this.buckets.delete(name));
    }
    return opened;
  }

  /** Since when NATS has been away from this bridge; undefined while it is connected. */
  awaySince(): number | undefined {
    return this.closed ? Date.now() : this.lostAt;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.requests.closeAll();
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.dropped.close();
    await this.nc.drain().catch(() => this.nc.close());
  }

  private async watchStatus(): Promise<void> {
    const { logger } = this.options;
    for await (const status of this.nc.status()) {
      switch (status.type) {
        case Events.Disconnect:
          this.lostAt ??= Date.now();
          logger.warn({ server: status.data }, 'site: lost NATS, reconnecting');
          break;
        case Events.Reconnect:
          this.lostAt = undefined;
          logger.info({ server: status.data }, 'site: NATS back');
          for (const listener of this.reconnected) listener();
          break;
        case Events.Error:
          logger.warn({ err: errorMessage(status.data) }, 'site: NATS error');
          break;
        default:
          break;
      }
    }
  }
}

function joinFailure(err: unknown, where: string): string {
  const code = err instanceof NatsError ? err.code : undefined;
  if (code === ErrorCode.AuthorizationViolation || code === ErrorCode.BadAuthentication)
    return `The NATS server at ${where} refused this bridge's credentials (${errorMessage(err)}). Check the user:password or token in OC_NATS_URL, or OC_NATS_TOKEN.`;
  return `The bridge could not join its site: NATS at ${where} did not answer (${errorMessage(err)}). Start nats-server there (with -js), or fix OC_NATS_URL.`;
}
