// A bridge joins its site: bridges started with the same DATABASE_URL and OC_NATS_URL are one
// site, with nothing else to configure (the subjects are named after the database's site id).
// What one bridge does that the others must follow at once is told on the bus and applied there
// without being told, written or audited again: token revocations (their cached lookups are
// dropped, their MCP sessions and overlay feeds end), sign-in sessions that ended (their sockets
// close), a person's toggles, each desktop's record, grants and charge (its plane reloads: windows
// of people who lost access close), mode, Stop, standing permissions and failed
// sign-ins (the throttle counts them site-wide), socket tickets (asked of one bridge, used on
// another), what each bridge holds open for the MCP session and tunnel caps (sharedCaps.ts),
// and the calls taken from the rate limits a
// token's sessions and a person's tokens share (sharedLimits.ts). Tool calls
// whose desktop's control window is on another bridge are forwarded there (remoteControl.ts);
// the approvals that window lists and its overlay changes reach the person's windows on every
// bridge, and an approval answered in any of them reaches it (windowsAcrossSite.ts). The
// sign-in device cookie is signed with the site's key (siteKeys.ts), so any bridge checks it.
// Revocations, ended sessions and changed toggles are answered "applied" by the others, and their
// sender waits a bounded moment for that (siteAcks.ts): a revocation awaited here (the token
// DELETE, a person cut off) is in force on every bridge that answered when it returns.
import type { Logger } from 'pino';
import type { Access } from '../auth/access.js';
import type { TokenMatch } from '../auth/apiTokens.js';
import { MemorySignInThrottle } from '../auth/signInThrottle.js';
import { tokenSocketKey } from '../auth/socketRegistry.js';
import { RemoteControl } from './remoteControl.js';
import { SharedLimitsOnBus } from './sharedLimits.js';
import { SharedCapsOnBus } from './sharedCaps.js';
import { SiteAcks } from './siteAcks.js';
import { StartupError, errorMessage } from '../errors.js';
import type { DesktopControl } from '../mcp/desktopControl.js';
import type { SiteEvent } from './messages.js';
import { SiteBus } from './siteBus.js';
import type { SiteConfig } from './siteConfig.js';
import { SiteKeys } from './siteKeys.js';
import { WindowsAcrossSite } from './windowsAcrossSite.js';

export interface SiteOptions {
  config: SiteConfig;
  access: Access;
  control: DesktopControl;
  logger: Logger;
  /** How long a control lease outlives its bridge (DEFAULT_LEASE_TTL_MS). */
  leaseTtlMs?: number | undefined;
}

export interface Site {
  readonly bus: SiteBus;
  /** Control-window leases and forwarded calls. */
  readonly remote: RemoteControl;
  /**
   * Ends MCP sessions of a token or person on every bridge (this one included); settles once the
   * others said they did (bounded: siteAcks.ts). The count is this bridge's.
   */
  endMcpSessions(match: TokenMatch, reason: string): Promise<number>;
  close(): Promise<void>;
}

export async function joinSite(options: SiteOptions): Promise<Site> {
  const { access, control } = options;
  const logger = options.logger.child({ part: 'site' });
  const siteId = await access.store.settings.get('site_id');
  if (typeof siteId !== 'string' || !/^[0-9a-f]{8,64}$/.test(siteId))
    throw new StartupError(
      'The database has no site id (settings site_id), which its migrations make: restore it from a backup, or let the bridge migrate a fresh database.',
    );
  const keys = await SiteKeys.load(access.store.settings, siteId, options.config.busKeys);
  if (access.store.kind === 'sqlite')
    logger.warn(
      'OC_NATS_URL is set but the store is the SQLite file in the data dir: no other bridge shares it, so this bridge is a site of its own. Give every bridge of the site the same DATABASE_URL (PostgreSQL).',
    );
  const bus = await SiteBus.join({
    config: options.config,
    siteId,
    logger,
    keys,
    ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
  });
  const { planes, sessions } = control;
  // What takes something away waits (a bounded moment) until the others applied it.
  const acks = new SiteAcks(bus, logger);

  // What happens here, told to the others.
  const unlisten = [
    access.tokens.onInvalidated((match) => acks.publish({ type: 'tokens_invalidated', ...match })),
    // A sign-out returns once the other bridges closed that session's sockets (bounded).
    access.sessions.onEnded(async (idHashes, reason, origin) => {
      if (origin !== 'here') return;
      const told: Promise<void>[] = [];
      for (let i = 0; i < idHashes.length; i += 1000)
        told.push(
          acks.publish({
            type: 'sign_in_sessions_ended',
            idHashes: idHashes.slice(i, i + 1000),
            reason: reason.slice(0, 500),
          }),
        );
      await Promise.all(told);
    }),
  ];
  // A page may ask one bridge for a socket ticket and connect to another.
  unlisten.push(
    access.tickets.onIssued((hash, entry) =>
      bus.publish({
        type: 'ticket_issued',
        hash,
        personId: entry.personId,
        sessionIdHash: entry.sessionIdHash,
        socket: entry.socket,
        headless: entry.headless,
        ...(entry.desktopId === undefined ? {} : { desktopId: entry.desktopId }),
        expiresAt: entry.expiresAt,
      }),
    ),
    access.tickets.onUsed((hash) => void bus.publish({ type: 'ticket_used', hash })),
  );
  // The sign-in throttle counts failures site-wide (a shared throttle of another kind would
  // need no help).
  const throttle = access.throttle instanceof MemorySignInThrottle ? access.throttle : undefined;
  // A browser remembered on one bridge is remembered on all (and across restarts).
  throttle?.deviceCookies.useKey(keys.key('sign-in devices'));
  if (throttle !== undefined)
    unlisten.push(
      throttle.onFailure((failure) => void bus.publish({ type: 'sign_in_failed', ...failure })),
    );
  const rateLimits = new SharedLimitsOnBus(bus, control.rateLimits);
  const caps = new SharedCapsOnBus(bus, sessions, access.sockets);
  // Tool calls whose control window is on another bridge go there, and this bridge's windows
  // take the calls of the others; the windows of every bridge show what that window lists.
  const remote = new RemoteControl({
    bus,
    planes,
    logger,
    // Where the control window is shows on every bridge (the fleet tile), at once.
    holderChanged: (desktopId) =>
      void planes.ifLoaded(desktopId).then((plane) => plane?.controlPlaceChanged()),
  });
  const windows = new WindowsAcrossSite({ bus, planes, remote, keys, logger });
  planes.site = {
    modeChanged: (desktopId, inChargeId, snapshot) =>
      void bus.publish({
        type: 'mode_changed',
        desktopId,
        inChargeId,
        mode: snapshot.mode,
        ...(snapshot.metadata === undefined ? {} : { metadata: snapshot.metadata }),
      }),
    stopped: (desktopId, byPersonId) =>
      void bus.publish({
        type: 'stopped',
        desktopId,
        ...(byPersonId === undefined ? {} : { byPersonId }),
        reason: 'Stopped by the person.',
      }),
    standingChanged: (desktopId) => void bus.publish({ type: 'standing_changed', desktopId }),
    permissionsChanged: (personId) => acks.publish({ type: 'permissions_changed', personId }),
    desktopChanged: (desktopId) => void bus.publish({ type: 'desktop_changed', desktopId }),
    approvalsListed: (desktopId, inChargeId, message) =>
      void bus.publish({
        type: 'approvals_listed',
        desktopId,
        inChargeId,
        requests: message.requests,
      }),
    answerApproval: (desktopId, person, message) => windows.answer(desktopId, person, message),
    controlElsewhere: (desktopId) => remote.controlElsewhere(desktopId),
    aiClientsListedElsewhere: (desktopId) => windows.listedElsewhere(desktopId),
    overlaysWanted: (desktopId) => void windows.fetchOverlays(desktopId),
    takeOver: (desktopId, on) => void bus.publish({ type: 'take_over', desktopId, on }),
    aiAction: (desktopId, message) =>
      void bus.publish({ type: 'ai_action', desktopId, action: message.action }),
    aiClientsListed: (desktopId, message) =>
      void bus.publish({ type: 'ai_clients_listed', desktopId, clients: message.clients }),
    overlaysChanged: (desktopId, change) =>
      void bus.publish({
        type: 'overlays_changed',
        desktopId,
        change:
          change.type === 'sync_state' ? { ...change, overlays: [...change.overlays] } : change,
      }),
  };

  // What the others did, applied here.
  const apply = async (event: SiteEvent): Promise<void> => {
    switch (event.type) {
      case 'tokens_invalidated':
        await access.tokens.invalidate(matchOf(event), 'site');
        return;
      case 'mcp_sessions_ended': {
        const ended = sessions.endWhere(matchOf(event), event.reason);
        if (event.tokenId !== undefined)
          access.sockets.closeSessions(
            [tokenSocketKey(event.tokenId)],
            'The API token was revoked.',
          );
        if (ended > 0) logger.info({ ended, reason: event.reason }, 'site: MCP sessions ended');
        return;
      }
      case 'sign_in_sessions_ended':
        access.sessions.endedElsewhere(event.idHashes, event.reason);
        return;
      case 'permissions_changed':
        await planes.permissionsChangedElsewhere(event.personId);
        return;
      case 'mode_changed':
        (await planes.ifLoaded(event.desktopId))?.fromSite.modeSetElsewhere(event.inChargeId, {
          mode: event.mode,
          metadata: event.metadata,
        });
        return;
      case 'stopped':
        (await planes.ifLoaded(event.desktopId))?.fromSite.stoppedElsewhere(
          event.byPersonId,
          event.reason,
        );
        return;
      case 'standing_changed':
        await (await planes.ifLoaded(event.desktopId))?.fromSite.standingChangedElsewhere();
        return;
      case 'ticket_issued': {
        const { type: _type, from: _from, hash, ...entry } = event;
        access.tickets.issuedElsewhere(hash, entry);
        return;
      }
      case 'ticket_used':
        access.tickets.usedElsewhere(event.hash);
        return;
      case 'resync':
        await catchUp().catch(caughtUp);
        return;
      case 'bridge_here':
        // Heard (acks.answerOnceApplied): nothing else to do.
        return;
      case 'desktop_changed':
        await planes.desktopChanged(event.desktopId, true);
        return;
      case 'rate_taken':
        rateLimits.takenElsewhere(event.entries);
        return;
      case 'open_counts':
        caps.told(event);
        return;
      case 'sign_in_failed':
        throttle?.failedElsewhere(event);
        return;
      case 'approvals_listed':
      case 'overlays_changed':
      case 'ai_action':
      case 'ai_clients_listed':
      case 'take_over':
        await windows.apply(event);
        return;
      default: {
        const unknown: never = event;
        void unknown;
      }
    }
  };
  bus.onEvent((event, msg) => acks.answerOnceApplied(event, msg, apply(event)));
  // The bridges there know this one (and it knows them) before it serves anything.
  await acks.announced;
  // NATS is at-most-once: what was said while a bridge was away from it is lost, both ways. What
  // lasts is in the store: the bridge that is back reads it again and asks the others to.
  const catchUp = async (): Promise<void> => {
    access.tokens.forgetAll();
    // Sockets of sign-in sessions that ended meanwhile close (their rows are gone).
    for (const idHash of access.sockets.liveSessions())
      if (/^[0-9a-f]{64}$/.test(idHash) && !(await access.sessions.exists(idHash)))
        access.sessions.endedElsewhere([idHash], 'the sign-in session ended');
    await planes.resyncFromStore();
  };
  const caughtUp = (err: unknown): void =>
    logger.warn({ err: errorMessage(err) }, 'site: could not catch up from the store');
  bus.onReconnect(() => {
    void bus.publish({ type: 'resync' });
    catchUp().catch(caughtUp);
  });
  control.route(remote);

  let closing: Promise<void> | undefined;
  return {
    bus,
    remote,
    endMcpSessions: async (match, reason) => {
      const told = acks.publish({
        type: 'mcp_sessions_ended',
        ...match,
        reason: reason.slice(0, 500),
      });
      const ended = sessions.endWhere(match, reason);
      // Settles once the other bridges ended theirs too (bounded, as a revocation).
      await told;
      return ended;
    },
    close: () =>
      (closing ??= (async () => {
        control.route(undefined);
        planes.site = undefined;
        for (const off of unlisten) off();
        rateLimits.close();
        caps.close();
        windows.close();
        acks.close();
        await remote.close();
        await bus.close();
      })()),
  };
}

function matchOf(event: {
  tokenId?: string | undefined;
  personId?: string | undefined;
}): TokenMatch {
  return {
    ...(event.tokenId === undefined ? {} : { tokenId: event.tokenId }),
    ...(event.personId === undefined ? {} : { personId: event.personId }),
  };
}
