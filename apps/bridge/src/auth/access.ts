// Who may reach this bridge, assembled: the store, sign-in sessions, API tokens, WebSocket
// tickets, the open sockets, the sign-in throttle, the first-run setup code, the audit log and
// the cookie settings. Wires what must follow from what — a session that ends closes its
// sockets and drops its unused tickets; sessions with an open socket stay alive — and runs the
// periodic sweep. One object, so routes and sockets share one view of who is signed in.
import type { Logger } from 'pino';
import { AuditLog } from '../audit/auditLog.js';
import type { Store } from '../store/types.js';
import { ApiTokenAuth } from './apiTokens.js';
import { cookieSettings, type CookieSettings } from './cookies.js';
import { SetupCode } from './setupCode.js';
import {
  DEFAULT_THROTTLE,
  MemorySignInThrottle,
  type SignInThrottle,
  type ThrottleLimits,
} from './signInThrottle.js';
import { SocketRegistry } from './socketRegistry.js';
import { Tickets } from './tickets.js';
import { DEFAULT_SESSION_LIMITS, WebSessions, type SessionLimits } from './webSessions.js';

export interface AccessOptions {
  store: Store;
  logger: Logger;
  /** OC_MCP_TOKEN: acts for the first admin. */
  envToken?: string | undefined;
  /** OC_PUBLIC_URL: https makes cookies Secure. */
  publicUrl?: string | undefined;
  sessionLimits?: SessionLimits;
  throttle?: ThrottleLimits;
  /** Addresses of reverse proxies whose X-Forwarded-For names the real client (OC_TRUSTED_PROXIES). */
  trustedProxies?: readonly string[];
  /** How long a socket ticket lives (TICKET_TTL_MS); tests shorten it. */
  ticketTtlMs?: number;
  now?: () => number;
}

export interface Access {
  readonly store: Store;
  readonly sessions: WebSessions;
  readonly tokens: ApiTokenAuth;
  readonly tickets: Tickets;
  readonly sockets: SocketRegistry;
  readonly throttle: SignInThrottle;
  readonly setup: SetupCode;
  readonly audit: AuditLog;
  readonly cookie: CookieSettings;
  readonly trustedProxies: readonly string[];
  close(): Promise<void>;
}

const SWEEP_EVERY_MS = 60_000;

export function createAccess(options: AccessOptions): Access {
  const now = options.now ?? Date.now;
  const { store, logger } = options;
  const sessions = new WebSessions(store, options.sessionLimits ?? DEFAULT_SESSION_LIMITS, now);
  const tickets = new Tickets(options.ticketTtlMs, now);
  const sockets = new SocketRegistry();
  const audit = new AuditLog(store, logger.child({ part: 'audit' }), now);
  sessions.onEnded((idHashes, reason) => {
    tickets.revokeSessions(idHashes);
    const closed = sockets.closeSessions(idHashes, `Signed out: ${reason}.`);
    if (closed > 0) logger.info({ closed, reason }, 'closed the sockets of ended sign-in sessions');
  });
  const sweep = async (): Promise<void> => {
    // An open viewer or tunnel counts as activity: its session does not idle out under it.
    for (const idHash of sockets.liveSessions()) await sessions.keepAlive(idHash);
    await sessions.sweep();
  };
  const timer = setInterval(() => {
    sweep().catch((err: unknown) => logger.warn({ err }, 'sign-in session sweep failed'));
  }, SWEEP_EVERY_MS);
  timer.unref();
  audit.startRetention();
  return {
    store,
    sessions,
    tokens: new ApiTokenAuth(store, options.envToken, now),
    tickets,
    sockets,
    throttle: new MemorySignInThrottle(options.throttle ?? DEFAULT_THROTTLE, now),
    setup: new SetupCode(),
    audit,
    cookie: cookieSettings(options.publicUrl, sessions.limits.absoluteMs),
    trustedProxies: options.trustedProxies ?? [],
    close: async () => {
      clearInterval(timer);
      await audit.stop();
    },
  };
}
