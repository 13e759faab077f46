// The stdio proxy's side of the bridge: one Streamable HTTP client transport at a time, and a
// new MCP session when the bridge no longer knows the old one (HTTP 404: it restarted, or the
// session idled out). A stdio client cannot start a session itself — it initialized once, with
// the proxy — so the proxy does it for it: it replays the client's own initialize and
// notifications/initialized, subscribes again to the resources the client had subscribed to,
// and then resends the message that got the 404. Resending is safe because a 404 means the
// bridge refused the message before running it. Messages of its own (ids `oc-proxy-…`) are
// answered here and never reach the client. It also sets the MCP-Protocol-Version header from
// the bridge's answer to initialize, as the SDK Client does for itself.
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  InitializeResultSchema,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

export interface BridgeSessionOptions {
  url: string;
  token: string | undefined;
  fetch: FetchLike;
  /** Every message from the bridge meant for the client. */
  onmessage(message: JSONRPCMessage): void;
  /** Errors of the background streams (the GET stream). */
  onerror(err: Error): void;
  /** One line for the person (stderr). */
  warn(line: string): void;
}

/** How long the bridge may take to answer one of the proxy's own requests while renewing. */
const RENEW_REQUEST_TIMEOUT_MS = 10_000;

const PREFIX = 'oc-proxy-';

const sessionGone = (err: unknown): boolean =>
  err instanceof StreamableHTTPError && err.code === 404;

const uriOf = (request: JSONRPCRequest): string | undefined => {
  const uri = (request.params as { uri?: unknown } | undefined)?.uri;
  return typeof uri === 'string' ? uri : undefined;
};

export class BridgeSession {
  private http: StreamableHTTPClientTransport;
  private clientInitialize: JSONRPCRequest | undefined;
  /** The client's initialize, until the bridge answers it. */
  private initializeId: RequestId | undefined;
  private protocolVersion: string | undefined;
  /** Resources the client subscribed to (answered with success), replayed on renewal. */
  private readonly subscribed = new Set<string>();
  private readonly subscribing = new Map<RequestId, string>();
  private readonly own = new Map<string, (message: JSONRPCMessage) => void>();
  private counter = 0;
  private renewing: Promise<void> | undefined;
  /** How many times a new session was opened (for logs and tests). */
  renewals = 0;

  constructor(private readonly options: BridgeSessionOptions) {
    this.http = this.open();
  }

  get sessionId(): string | undefined {
    return this.http.sessionId;
  }

  start(): Promise<void> {
    return this.http.start();
  }

  /** The version the bridge answered initialize with (sent as a header on later requests). */
  private setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.http.setProtocolVersion(version);
  }

  /** Sends a client message; after a 404 it opens a new session once and resends. */
  async send(message: JSONRPCMessage): Promise<void> {
    this.note(message);
    if (this.renewing !== undefined) await this.renewing;
    try {
      await this.http.send(message);
    } catch (err) {
      const initialize = isJSONRPCRequest(message) && message.method === 'initialize';
      if (!sessionGone(err) || initialize || this.clientInitialize === undefined) throw err;
      await (this.renewing ??= this.renew().finally(() => (this.renewing = undefined)));
      await this.http.send(message);
    }
  }

  async terminate(): Promise<void> {
    if (this.http.sessionId !== undefined) await this.http.terminateSession();
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private open(): StreamableHTTPClientTransport {
    const http = new StreamableHTTPClientTransport(new URL(this.options.url), {
      fetch: this.options.fetch,
      requestInit:
        this.options.token === undefined
          ? {}
          : { headers: { Authorization: `Bearer ${this.options.token}` } },
    });
    http.onmessage = (message) => this.receive(message);
    // A 404 is this module's business (the next message renews the session), not an error for
    // the person; the SDK reports it here before rejecting the send.
    http.onerror = (err) => {
      if (!sessionGone(err)) this.options.onerror(err);
    };
    return http;
  }

  /** Remembers what a renewal has to replay. */
  private note(message: JSONRPCMessage): void {
    if (!isJSONRPCRequest(message)) return;
    if (message.method === 'initialize') {
      this.clientInitialize = message;
      this.initializeId = message.id;
    }
    const uri = uriOf(message);
    if (uri === undefined) return;
    if (message.method === 'resources/subscribe') this.subscribing.set(message.id, uri);
    if (message.method === 'resources/unsubscribe') this.subscribed.delete(uri);
  }

  private receive(message: JSONRPCMessage): void {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const id = message.id;
      const mine = typeof id === 'string' ? this.own.get(id) : undefined;
      if (mine !== undefined) {
        mine(message);
        return;
      }
      if (id !== undefined && id === this.initializeId) {
        this.initializeId = undefined;
        const init = InitializeResultSchema.safeParse(
          isJSONRPCResultResponse(message) ? message.result : undefined,
        );
        if (init.success) this.setProtocolVersion(init.data.protocolVersion);
      }
      const uri = id === undefined ? undefined : this.subscribing.get(id);
      if (id !== undefined && uri !== undefined) {
        this.subscribing.delete(id);
        if (isJSONRPCResultResponse(message)) this.subscribed.add(uri);
      }
    }
    this.options.onmessage(message);
  }

  private async renew(): Promise<void> {
    const initialize = this.clientInitialize;
    if (initialize === undefined) throw new Error('the client never initialized');
    const old = this.http;
    old.onmessage = undefined;
    old.onerror = undefined;
    void old.close().catch(() => undefined);
    this.http = this.open();
    await this.http.start();
    const answer = await this.request('initialize', initialize.params);
    const result = InitializeResultSchema.safeParse(answer);
    const version = result.success ? result.data.protocolVersion : this.protocolVersion;
    if (version !== undefined) this.setProtocolVersion(version);
    await this.http.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    for (const uri of this.subscribed) {
      await this.request('resources/subscribe', { uri }).catch((err: unknown) => {
        this.subscribed.delete(uri);
        this.options.warn(`Could not subscribe again to ${uri}: ${String(err)}`);
      });
    }
    this.renewals += 1;
    this.options.warn(
      `The bridge at ${this.options.url} no longer knew this MCP session (it restarted, or the session expired); opened a new one${this.subscribed.size > 0 ? ` and subscribed again to ${[...this.subscribed].join(', ')}` : ''}. Event subscriptions made with subscribe_events ended with the old session.`,
    );
  }

  /** Sends a request of the proxy's own and resolves with its result. */
  private async request(method: string, params: unknown): Promise<unknown> {
    const id = `${PREFIX}${++this.counter}`;
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<JSONRPCMessage>((resolve, reject) => {
      this.own.set(id, resolve);
      timer = setTimeout(
        () => reject(new Error(`the bridge did not answer ${method}`)),
        RENEW_REQUEST_TIMEOUT_MS,
      );
    });
    try {
      await this.http.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
      const message = await answered;
      if (isJSONRPCErrorResponse(message)) throw new Error(message.error.message);
      return isJSONRPCResultResponse(message) ? message.result : undefined;
    } finally {
      clearTimeout(timer);
      this.own.delete(id);
    }
  }
}
