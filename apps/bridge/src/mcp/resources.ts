// The session's MCP resources and their subscriptions: screenshot://latest (the latest capture,
// an image blob) and events://<subscription_id> (buffered events as JSON, read without draining).
// resources/subscribe and /unsubscribe record interest; `notifyUpdated` sends
// notifications/resources/updated only for subscribed URIs, coalescing bursts of events.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { LATEST_SCREENSHOT_URI } from './screenshots/feed.js';
import type { SessionState } from './toolkit.js';

/** Event notifications for one subscription are sent at most this often. */
export const EVENT_NOTIFY_INTERVAL_MS = 100;

export function eventsUri(subscriptionId: string): string {
  return `events://${subscriptionId}`;
}

export function registerResources(server: McpServer, session: () => SessionState): void {
  server.registerResource(
    'latest-screenshot',
    LATEST_SCREENSHOT_URI,
    {
      title: 'Latest screenshot',
      description:
        'The most recent capture of the remote desktop (from set_screenshot_frequency or take_screenshot). Subscribe to be told when it changes.',
      mimeType: 'image/png',
    },
    (uri) => {
      // Background captures failing for good: the reason, not a capture that is no longer the screen.
      const failing = session().screenshots.failure;
      if (failing !== undefined) throw new McpError(ErrorCode.InternalError, failing);
      const latest = session().screenshots.latest;
      if (latest === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          'No screenshot yet: call take_screenshot, or set_screenshot_frequency to capture in the background.',
        );
      }
      return { contents: [{ uri: uri.toString(), mimeType: latest.mimeType, blob: latest.data }] };
    },
  );

  server.registerResource(
    'events',
    new ResourceTemplate('events://{subscription_id}', {
      list: () => ({
        resources: session()
          .events.ids()
          .map((id) => ({ uri: eventsUri(id), name: id, mimeType: 'application/json' })),
      }),
    }),
    {
      title: 'Buffered events',
      description:
        'Events buffered for a subscription from subscribe_events, oldest first (reading does not remove them; get_events does).',
      mimeType: 'application/json',
    },
    (uri, variables) => {
      const id = String(variables.subscription_id ?? '');
      const peeked = session().events.peek(id);
      if (peeked === undefined) {
        throw new McpError(ErrorCode.InvalidParams, `No subscription ${id} in this session.`);
      }
      return {
        contents: [
          { uri: uri.toString(), mimeType: 'application/json', text: JSON.stringify(peeked) },
        ],
      };
    },
  );

  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    const uri = request.params.uri;
    const s = session();
    const known =
      uri === LATEST_SCREENSHOT_URI ||
      (uri.startsWith('events://') && s.events.has(uri.slice('events://'.length)));
    if (!known) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Cannot subscribe to ${uri}: use screenshot://latest or events://<subscription_id> from subscribe_events.`,
      );
    }
    s.resourceSubscriptions.add(uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    session().resourceSubscriptions.delete(request.params.uri);
    return {};
  });
}

/** Sends resources/updated for subscribed URIs, at most once per interval per URI. */
export class UpdateNotifier {
  private readonly waiting = new Map<string, NodeJS.Timeout>();
  private readonly lastSent = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly session: () => SessionState,
    private readonly logger: Logger,
    private readonly minIntervalMs = EVENT_NOTIFY_INTERVAL_MS,
  ) {}

  notify(uri: string): void {
    if (this.closed || !this.session().resourceSubscriptions.has(uri)) return;
    if (this.waiting.has(uri)) return;
    const wait = Math.max(0, (this.lastSent.get(uri) ?? 0) + this.minIntervalMs - Date.now());
    const timer = setTimeout(() => {
      this.waiting.delete(uri);
      const now = Date.now();
      // Only a send within the interval matters: forget older ones (one per subscription ever
      // notified would otherwise pile up for the session's life).
      for (const [sent, at] of this.lastSent)
        if (now - at >= this.minIntervalMs) this.lastSent.delete(sent);
      this.lastSent.set(uri, now);
      if (this.closed || !this.session().resourceSubscriptions.has(uri)) return;
      this.session()
        .server.server.sendResourceUpdated({ uri })
        .catch((err: unknown) => this.logger.debug({ err, uri }, 'resources/updated not sent'));
    }, wait);
    timer.unref();
    this.waiting.set(uri, timer);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }
}
