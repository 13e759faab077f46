// `overlay-companion serve`: starts, in order, the data dir and the store (checked and migrated),
// who may sign in (the scripted admin, or a one-time setup code), the desktop (for --desktop
// local), the embedded gateway (unless --guacd names a real guacd) and the bridge, and returns
// one stop() that ends them in reverse. If a later part fails to start, the earlier ones are
// stopped before the error is thrown, so a failed start leaves no Xvnc behind.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { JOIN_SECRET_ARG, startGateway } from '@overlay-companion/gateway';
import { createAccess, type Access } from '../auth/access.js';
import { firstActiveAdmin } from '../auth/apiTokens.js';
import { prepareFirstRun, type FirstRun } from '../auth/firstRun.js';
import { OidcSignIn } from '../auth/oidc.js';
import type { GuacdAddress } from '../config.js';
import { StartupError, errorMessage } from '../errors.js';
import {
  startWithDesktopControl,
  type ControlledBridge,
  type ControlledBridgeOptions,
} from '../bridge.js';
import { CliDesktopHome } from '../desktops/cliDesktopHome.js';
import { DesktopDirectory } from '../desktops/desktopDirectory.js';
import { DESKTOP_HOMES_DIR, DesktopHomes } from '../desktops/desktopHomes.js';
import { DEFAULT_DESKTOP_HOME_QUOTA_BYTES } from '../desktops/homeQuota.js';
import { LocalDesktopPool } from '../desktops/localDesktopPool.js';
import { BridgeMetrics } from '../metrics/bridgeMetrics.js';
import { openStore, prepareDataDir } from '../store/index.js';
import type { ServeOptions } from './args.js';
import { prepareSource, type PreparedSource } from './desktopSource.js';
import { watchPoolTls } from './gatewayPoolOptions.js';
import type { HeadlessViewer } from '../headless/headlessViewer.js';

export interface ServeHandle {
  /** The bridge with its desktop control (/mcp, /ws/viewer, /ws/overlays) and the API. */
  bridge: ControlledBridge;
  access: Access;
  /** What the person must do to sign in for the first time, if anything. */
  firstRun: FirstRun;
  source: PreparedSource;
  guacd: GuacdAddress;
  /** True when the gateway runs inside this process. */
  embeddedGateway: boolean;
  /** The headless Chromium viewer (--headless-viewer), if started. */
  headlessViewer: HeadlessViewer | undefined;
  /** What /metrics reports. */
  metrics: BridgeMetrics;
  stop(): Promise<void>;
}

export async function runServe(options: ServeOptions, logger: Logger): Promise<ServeHandle> {
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (err) {
        logger.warn({ err }, 'a part did not stop cleanly');
      }
    }
  };

  const metrics = new BridgeMetrics();
  /** The bridge once it runs (the local desktops ask it whether a desktop is open). */
  const bridgeRef: { current?: ControlledBridge } = {};
  try {
    const dataDir = resolve(options.dataDir);
    await prepareDataDir(dataDir);
    const store = await openStore({
      dataDir,
      databaseUrl: options.databaseUrl,
      logger: logger.child({ part: 'store' }),
    });
    stops.push(() => store.close());
    // Renewed pool TLS files (OC_POOL_*) are taken up without a restart.
    const poolTlsWatch = watchPoolTls(
      options.gatewayPool,
      process.env,
      logger.child({ part: 'pool-tls' }),
    );
    if (poolTlsWatch !== undefined) stops.push(() => Promise.resolve(poolTlsWatch()));
    const access = createAccess({
      store,
      logger,
      envToken: options.mcpToken,
      publicUrl: options.publicUrl,
      ...(options.sessionLimits === undefined ? {} : { sessionLimits: options.sessionLimits }),
      ...(options.throttle === undefined ? {} : { throttle: options.throttle }),
      ...(options.trustedProxies === undefined ? {} : { trustedProxies: options.trustedProxies }),
    });
    stops.push(() => access.close());
    const firstRun = await prepareFirstRun(store, access.setup, access.audit, options.admin);
    if (options.headlessViewer === true && firstRun.kind === 'setup') {
      throw new StartupError(
        '--headless-viewer acts for the admin, and there is none yet: set OC_ADMIN_USER and OC_ADMIN_PASSWORD (or finish setup with the link from a run without --headless-viewer), then start again.',
      );
    }

    // Local desktops' HOMEs and uids, the command line's among them (desktops/desktopHomes.ts).
    const homes = new DesktopHomes(join(dataDir, DESKTOP_HOMES_DIR));
    /** What happened to a local desktop's HOME, in the audit (the pool's and the command line's). */
    const auditHome = (desktopId: string, outcome: 'ok' | 'denied', detail: string): void =>
      void store.desktops
        .byId(desktopId)
        .then((record) =>
          access.audit.record({
            kind: 'desktop_changed',
            actor: 'system',
            personId: null,
            personName: null,
            summary: `desktop "${record?.name ?? desktopId}" (${desktopId})`,
            outcome,
            detail,
          }),
        )
        .catch(() => undefined); // logged where it happened
    const homeEvents = {
      onOverQuota: (desktopId: string, used: number, quota: number) =>
        auditHome(
          desktopId,
          'denied',
          `stopped: its home folder holds ${String(used)} bytes, over its quota of ${String(quota)} (OC_DESKTOP_HOME_QUOTA)`,
        ),
      onHomeReplaced: (desktopId: string) =>
        auditHome(
          desktopId,
          'ok',
          'started on an empty home: the home kept for it was made for someone else, or before owners were recorded, and was deleted',
        ),
    };
    const cliHome =
      options.source.kind === 'local'
        ? new CliDesktopHome({
            homes,
            store,
            quotaBytes: options.desktopHomeQuotaBytes ?? DEFAULT_DESKTOP_HOME_QUOTA_BYTES,
            logger: logger.child({ part: 'local-desktop' }),
            ...homeEvents,
          })
        : undefined;
    if (cliHome !== undefined) {
      stops.push(() => cliHome.release());
      // Its record made now when an admin exists (the bridge's directory finds it), so the desktop
      // starts as that record's: a first run before setup starts on a fresh HOME this time.
      await new DesktopDirectory({
        store,
        logger: logger.child({ part: 'desktops' }),
        cliDesktop: { name: options.desktopName ?? 'Desktop', kind: 'local', params: {} },
      })
        .cliDesktopId()
        .catch(() => undefined);
    }
    const source = await prepareSource(
      options.source,
      options.desktopSize,
      options.guacd !== undefined,
      logger,
      cliHome,
    );
    const { supervisor } = source;
    if (supervisor) stops.push(() => supervisor.stop());
    // Given away, removed or over its quota, it starts again (also with --guacd: no pool then).
    if (supervisor && cliHome) {
      const unwatch = cliHome.watch((reason, needed) => supervisor.restartNow(reason, needed));
      stops.push(() => Promise.resolve(unwatch()));
    }

    let guacd: GuacdAddress | undefined = options.guacd;
    let connection = source.connection;
    let gatewayForRecords: ControlledBridgeOptions['gateway'];
    let localDesktops: LocalDesktopPool | undefined;
    if (!guacd) {
      // Only the bridge reaches the embedded gateway: no TCP port, a Unix socket in a 0700
      // directory of ours, and a join secret only this process knows — sent when a person's
      // further windows join their connection (the gateway asks for it only then).
      const runDir = await privateRunDir(dataDir);
      stops.push(() => runDir.remove());
      const joinSecret = randomBytes(32).toString('base64url');
      connection = {
        ...connection,
        params: { ...connection.params, [JOIN_SECRET_ARG]: joinSecret },
      };
      try {
        const gateway = await startGateway({
          path: join(runDir.path, 'gateway.sock'),
          joinSecret,
          vncUnixSockets: source.vncUnixSockets,
          logger: logger.child({ part: 'gateway' }),
          onFrameEncoded: metrics.gatewayFrame,
        });
        stops.push(() => gateway.close());
        guacd = { path: gateway.path };
        source.allowSocketsWith?.((path) => gateway.allowVncUnixSocket(path));
        gatewayForRecords = { address: guacd, joinSecretArg: JOIN_SECRET_ARG, joinSecret };
        // Local desktop records (per-person ones among them) start on demand, sandboxed.
        localDesktops = new LocalDesktopPool({
          logger: logger.child({ part: 'local-desktops' }),
          allowSocket: (path) => gateway.allowVncUnixSocket(path),
          inUse: (desktopId) => bridgeRef.current?.tunnels.inUse(desktopId) ?? false,
          size: options.desktopSize,
          dataDir,
          homes,
          // Given away or removed, the command line's desktop starts again on a fresh HOME.
          elsewhere:
            cliHome === undefined || supervisor === undefined
              ? undefined
              : {
                  has: (desktopId) => desktopId === cliHome.desktopId,
                  reconcile: async (desktopId, ownerId) => {
                    const changed = (): boolean => !cliHome.stillOwnedBy(desktopId, ownerId);
                    if (changed())
                      await supervisor.restartNow(
                        'the command line desktop changed hands',
                        changed,
                      );
                  },
                },
          recordOwner: async (desktopId) => (await store.desktops.byId(desktopId))?.ownerId,
          homeQuotaBytes: options.desktopHomeQuotaBytes,
          ...homeEvents,
        });
      } catch (err) {
        throw new StartupError(`The embedded gateway could not start: ${errorMessage(err)}`);
      }
    }

    // The callback is on the address people use; without OC_PUBLIC_URL that is the bridge's
    // own URL, known once it listens (port 0 picks one).
    const listening: { url?: string } = {};
    const oidc =
      options.oidc === undefined
        ? undefined
        : new OidcSignIn(options.oidc, store, () =>
            new URL('/api/auth/oidc/callback', options.publicUrl ?? listening.url).toString(),
          );
    const bridge = await startWithDesktopControl(
      {
        host: options.host,
        port: options.port,
        dataDir,
        ...(options.webRoot === undefined ? {} : { webRoot: resolve(options.webRoot) }),
        guacd,
        connection,
        ...(options.desktopSize === undefined ? {} : { desktopSize: options.desktopSize }),
        // Desktops the pool can reach open on its gateways (tunnel/gatewayPool.ts).
        ...(options.gatewayPool === undefined
          ? {}
          : { tunnel: { gatewayPool: options.gatewayPool } }),
      },
      {
        access,
        initialMode: options.mode,
        publicUrl: options.publicUrl,
        oidc,
        metrics,
        cliDesktop: {
          name: options.desktopName ?? 'Desktop',
          kind: source.record.kind,
          params: source.record.params,
          password: source.record.password,
        },
        perPersonLocal: options.localDesktops === 'per-person' ? { params: {} } : undefined,
        gateway: gatewayForRecords,
        // guacd desktop records go to the pool when there is one (it places them on a guacd).
        guacdForRecords: options.guacd ?? options.gatewayPool?.members[0],
        localDesktops,
        recording: { recordByDefault: options.record === true, s3: options.recordingsS3 },
        files: {
          // File transfer: the command line's local desktop's folder, and RDP desktops' drives
          // when guacd shares this machine (files/rdpDrive.ts).
          ...(supervisor === undefined ? {} : { cliLocal: () => supervisor.current }),
          ...(process.env.OC_RDP_DRIVE_DIR ? { rdpDriveRoot: process.env.OC_RDP_DRIVE_DIR } : {}),
          ...(options.rdpDriveQuotaBytes === undefined
            ? {}
            : { rdpDriveQuotaBytes: options.rdpDriveQuotaBytes }),
        },
        ...(options.site === undefined ? {} : { site: { config: options.site } }),
        // A restarted local desktop listens on a new socket: the tunnel asks for it each time,
        // and is told in words while the desktop is being started again.
        ...(supervisor === undefined
          ? {}
          : {
              cliConnection: () => ({
                ...connection,
                params: { ...connection.params, hostname: supervisor.running().rfbPath },
              }),
            }),
      },
      {
        logger,
        metrics,
        metricsToken: options.metricsToken,
        metricsOpenLoopback: options.metricsOpenLoopback,
        // /readyz also asks the local desktop itself (its VNC server greets on its socket).
        ...(supervisor === undefined
          ? {}
          : { desktopProbe: (timeoutMs: number) => supervisor.probe(timeoutMs) }),
      },
    );
    stops.push(() => bridge.close());
    bridgeRef.current = bridge;
    listening.url = bridge.url;
    let headlessViewer: HeadlessViewer | undefined;
    if (options.headlessViewer === true) {
      const admin = await firstActiveAdmin(store);
      if (admin === undefined)
        throw new StartupError('--headless-viewer needs an admin to act for.');
      let headlessSession: string | undefined;
      // Loaded only here: playwright-core takes long to import, and most bridges never need it.
      const { startHeadlessViewer } = await import('../headless/headlessViewer.js');
      const viewer = await startHeadlessViewer({
        bridgeUrl: bridge.url,
        logger: logger.child({ part: 'headless-viewer' }),
        // A session that exists only in this process, handed to the Chromium it launches; a
        // relaunch ends the previous one (and so its sockets).
        signIn: () => {
          if (headlessSession !== undefined) {
            void access.sessions.end(headlessSession, 'the headless viewer was relaunched');
          }
          const minted = access.sessions.createHeadless(admin.id);
          headlessSession = minted.session.idHash;
          return { name: access.cookie.name, value: minted.cookieValue };
        },
      });
      // A call that finds no window while it is relaunched is told to retry, not to open one.
      bridge.desktopControl.expectHeadless(viewer);
      // Pushed last, so it closes first: the page leaves before the bridge goes away.
      stops.push(() => viewer.stop());
      headlessViewer = viewer;
    }

    let stopping: Promise<void> | undefined;
    return {
      bridge,
      access,
      firstRun,
      source,
      guacd,
      embeddedGateway: options.guacd === undefined,
      headlessViewer,
      metrics,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Unix socket paths are limited to about 107 bytes; leave room for the file name. */
const MAX_RUN_DIR_LENGTH = 90;

/**
 * A 0700 directory for the gateway's socket: `<data dir>/run`, or a private temporary directory
 * when the data dir's path is too long for a Unix socket.
 */
async function privateRunDir(dataDir: string): Promise<{ path: string; remove(): Promise<void> }> {
  const inData = join(dataDir, 'run');
  if (Buffer.byteLength(inData) <= MAX_RUN_DIR_LENGTH) {
    await mkdir(inData, { recursive: true, mode: 0o700 });
    await chmod(inData, 0o700);
    return { path: inData, remove: () => Promise.resolve() };
  }
  const temporary = await mkdtemp(join(tmpdir(), 'oc-run-'));
  await chmod(temporary, 0o700);
  return { path: temporary, remove: () => rm(temporary, { recursive: true, force: true }) };
}
