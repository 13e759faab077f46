// This bridge's requests to another bridge waiting for their answers (SiteBus.request: forwarded
// calls, approval answers, overlay fetches). Every request is answered at one of this bridge's
// own reply subjects (`oc.<site>.bridge.<id>.reply.<n>`, one subscription for all): a request
// waits for the first answer that opens and parses, so someone with the NATS credentials
// answering first cannot end it, and no per-request inbox, timer promise or error object of the
// client's request() is made on the way of every forwarded call.
import type { Msg } from 'nats';
import type { z } from 'zod';
import { errorMessage } from '../errors.js';
import type { DropWarnings } from './dropWarnings.js';
import type { SeenSeals, SiteSeal } from './siteSeal.js';

/** Why a request of this bridge got no answer. */
export class NoAnswer extends Error {
  constructor(
    readonly why: 'timeout' | 'no responders' | 'closed',
    message = `no answer: ${why}`,
  ) {
    super(message);
  }
}

/** A request on its way: its answer (opened and parsed), and a way to end the wait early. */
export interface Asked<T> {
  answer: Promise<T>;
  /** Ends the wait with `error` (the caller knows no answer can come); no-op once settled. */
  fail(error: Error): void;
}

interface Waiting {
  schema: z.ZodType;
  timer: NodeJS.Timeout;
  settle(error: Error | undefined, answer?: unknown): void;
}

export class PendingRequests {
  private readonly waiting = new Map<string, Waiting>();
  private count = 0;

  constructor(
    /** This bridge's reply subjects' prefix (`….reply.`). */
    private readonly replyPrefix: string,
    private readonly sealer: SiteSeal,
    /** Replies to this bridge's requests seen so far (SiteBus.openReply shares it). */
    private readonly seen: SeenSeals,
    private readonly dropped: DropWarnings,
  ) {}

  /**
   * A new reply subject, handed to `send`, and the wait for the first answer there that opens
   * and parses with `schema`, for up to `timeoutMs` (then NoAnswer 'timeout'). `send` throwing
   * fails the wait with its error.
   */
  ask<S extends z.ZodType>(
    schema: S,
    timeoutMs: number,
    send: (reply: string) => void,
  ): Asked<z.output<S>> {
    this.count = (this.count + 1) % Number.MAX_SAFE_INTEGER;
    const reply = this.replyPrefix + this.count.toString(36);
    let settle: Waiting['settle'] = () => undefined;
    const answer = new Promise<z.output<S>>((resolve, reject) => {
      settle = (error, value) => {
        const waiting = this.waiting.get(reply);
        if (waiting === undefined) return;
        this.waiting.delete(reply);
        clearTimeout(waiting.timer);
        if (error === undefined) resolve(value as z.output<S>);
        else reject(error);
      };
    });
    const timer = setTimeout(() => settle(new NoAnswer('timeout')), timeoutMs);
    this.waiting.set(reply, { schema, timer, settle });
    try {
      send(reply);
    } catch (err) {
      settle(err instanceof Error ? err : new Error(errorMessage(err)));
    }
    return { answer, fail: (error) => settle(error) };
  }

  /** An answer at one of this bridge's reply subjects, for the request waiting there. */
  replied(msg: Msg): void {
    const waiting = this.waiting.get(msg.subject);
    // Late (the request timed out or failed), answered twice, or made up: nothing waits for it.
    if (waiting === undefined) return;
    // NATS's status for a request nobody listens for (the connection asks for it: headers and
    // no_responders are on by default).
    if (msg.data.byteLength === 0 && msg.headers?.code === 503) {
      waiting.settle(new NoAnswer('no responders'));
      return;
    }
    const opened = this.sealer.open(msg.subject, waiting.schema, msg.data, { seen: this.seen });
    if (!opened.ok) {
      this.dropped.warn(
        { error: opened.error, bytes: msg.data.byteLength },
        'site: dropped an answer that failed its seal or schema',
      );
      return;
    }
    waiting.settle(undefined, opened.message);
  }

  /** Ends every wait with NoAnswer 'closed' (this bridge leaves the site). */
  closeAll(): void {
    for (const waiting of [...this.waiting.values()]) waiting.settle(new NoAnswer('closed'));
  }
}
