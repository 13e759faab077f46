// MCP's logging utility for one session: the server declares `logging`, the client picks its
// level with logging/setLevel (per session; "info" until it does), and the bridge sends
// notifications/message about that client's own session only — its tool calls that were
// denied, rate limited, timed out, cancelled or failed, and at debug level every call — never
// about other sessions or people. Notifications go on the session's GET stream.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SetLevelRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ToolOutcome } from '../metrics/bridgeMetrics.js';
import type { WatchedCall } from '../metrics/toolCallWatch.js';

/** Severity order of MCP log levels (RFC 5424), lowest first. */
const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** How loud each outcome of the client's own call is. */
const OUTCOME_LEVEL: Readonly<Record<ToolOutcome, LoggingLevel>> = {
  ok: 'debug',
  invalid_parameters: 'notice',
  rejected: 'notice',
  permission_denied: 'warning',
  rate_limited: 'warning',
  cancelled: 'warning',
  timeout: 'warning',
  viewer_unavailable: 'warning',
  system_error: 'error',
};

export const CLIENT_LOGGER_NAME = 'overlay-companion';
const MAX_MESSAGE_LENGTH = 500;

export class ClientLog {
  private level: LoggingLevel = 'info';

  /** Call before the server connects: capabilities cannot change afterwards. */
  constructor(
    private readonly server: Server,
    private readonly logger: Logger,
  ) {
    server.registerCapabilities({ logging: {} });
    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      this.level = request.params.level;
      return {};
    });
  }

  get currentLevel(): LoggingLevel {
    return this.level;
  }

  /** Tells the client how one of its calls ended, when that is at or above its level. */
  toolCall(call: WatchedCall): void {
    const level = OUTCOME_LEVEL[call.outcome];
    const ms = Math.round(call.seconds * 1000);
    const summary =
      call.outcome === 'ok'
        ? `${call.tool} ok in ${ms} ms`
        : `${call.tool} ended with ${call.outcome} after ${ms} ms`;
    this.send(level, {
      message: summary,
      tool: call.tool,
      outcome: call.outcome,
      duration_ms: ms,
      ...(call.message === undefined ? {} : { detail: call.message.slice(0, MAX_MESSAGE_LENGTH) }),
    });
  }

  send(level: LoggingLevel, data: Record<string, unknown>): void {
    if (LEVELS.indexOf(level) < LEVELS.indexOf(this.level)) return;
    this.server
      .sendLoggingMessage({ level, logger: CLIENT_LOGGER_NAME, data })
      .catch((err: unknown) =>
        this.logger.debug({ err }, 'a log notification could not be sent to the MCP client'),
      );
  }
}
