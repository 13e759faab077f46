// The desktops as the bridge assembles them (bridge.ts): their records (DesktopDirectory, with
// the command line's desktop sealed with its password), where each one's tunnel leads (the
// command line's desktop reaches the configured connection, every other record its own target —
// tunnel/desktopTargets.ts), and what a change to a record does at once (its plane reloads, a
// removed local desktop stops, one given away loses its HOME).
import type { DesktopParams } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import type { Access } from '../auth/access.js';
import type { ConnectionConfig, GuacdAddress } from '../config.js';
import type { DesktopSecretBox } from '../desktops/credentials.js';
import { DesktopDirectory, type CliDesktop } from '../desktops/desktopDirectory.js';
import type { LocalDesktopPool } from '../desktops/localDesktopPool.js';
import type { ApiDeps } from '../api/deps.js';
import { rdpDriveParams } from '../files/rdpDrive.js';
import type { DesktopPlanes } from '../mcp/desktopPlanes.js';
import { desktopTargets, type DesktopTargetsOptions } from '../tunnel/desktopTargets.js';
import type { TunnelDesktops } from '../tunnel/tunnelEndpoint.js';
import type { TunnelTarget } from '../tunnel/tunnelSession.js';

/** The desktop the command line names, with its password (sealed into its record). */
export type CliDesktopSetup = Omit<CliDesktop, 'seal'> & { password?: string | undefined };

/** The desktops as serve's flags set them up (part of ControlledBridgeOptions). */
export interface DesktopSetup {
  /** The desktop the command line names (default: "Desktop", the configured connection). */
  cliDesktop?: CliDesktopSetup;
  /** One local desktop per person (serve --local-desktops per-person). */
  perPersonLocal?: { params: DesktopParams } | undefined;
  /** Where `vnc` and `local` desktop records connect (the embedded gateway), if there is one. */
  gateway?: DesktopTargetsOptions['gateway'];
  /** Apache guacd for `guacd-*` records (serve --guacd). */
  guacdForRecords?: GuacdAddress | undefined;
  /** Local desktops started on demand (serve); without it `local` records cannot open. */
  localDesktops?: LocalDesktopPool | undefined;
  /**
   * The command line desktop's connection now, asked at each open (a supervised local desktop
   * moves when restarted; throws DesktopReachError while it is down); default: the config's.
   */
  cliConnection?: (() => ConnectionConfig) | undefined;
}

/** Without serve's flags: one desktop named "Desktop" reaching the configured connection. */
const DEFAULT_CLI_DESKTOP: CliDesktopSetup = { name: 'Desktop', kind: 'vnc', params: {} };

export function desktopDirectory(deps: {
  access: Access;
  logger: Logger;
  secretBox: DesktopSecretBox;
  setup: DesktopSetup;
}): DesktopDirectory {
  const { secretBox } = deps;
  const cli = deps.setup.cliDesktop ?? DEFAULT_CLI_DESKTOP;
  return new DesktopDirectory({
    store: deps.access.store,
    logger: deps.logger.child({ part: 'desktops' }),
    perPersonLocal: deps.setup.perPersonLocal,
    cliDesktop: {
      ...cli,
      seal: (id) =>
        cli.password === undefined || cli.password === ''
          ? null
          : secretBox.seal(id, { password: cli.password }),
    },
  });
}

/** Where each desktop's tunnel leads: its record's target, the command line's the configured one. */
export function tunnelDesktops(deps: {
  access: Access;
  directory: DesktopDirectory;
  logger: Logger;
  secretBox: DesktopSecretBox;
  setup: DesktopSetup;
  rdpDriveRoot: string | undefined;
  /** The command line's desktop reaches the configured target (serve prepared it). */
  cliTarget: TunnelTarget;
}): TunnelDesktops {
  const { directory, cliTarget, rdpDriveRoot } = deps;
  const { cliConnection } = deps.setup;
  const targets = desktopTargets({
    store: deps.access.store,
    directory,
    logger: deps.logger,
    secretBox: deps.secretBox,
    gateway: deps.setup.gateway,
    guacd: deps.setup.guacdForRecords,
    localDesktops: deps.setup.localDesktops,
    rdpDrive:
      rdpDriveRoot === undefined
        ? undefined
        : (desktopId) => rdpDriveParams(rdpDriveRoot, desktopId),
  });
  return {
    resolve: (personId, desktopId) => targets.resolve(personId, desktopId),
    target: async (desktopId) => {
      if (desktopId !== (await directory.cliDesktopId())) return targets.target(desktopId);
      return cliConnection === undefined
        ? cliTarget
        : { guacd: cliTarget.guacd, connection: cliConnection() };
    },
  };
}

/** What a stored change to a desktop record does at once, then the caller's own hook. */
export function desktopsChangedAtOnce(deps: {
  planes: DesktopPlanes;
  localDesktops: LocalDesktopPool | undefined;
  then: ApiDeps['desktopsChanged'];
}): NonNullable<ApiDeps['desktopsChanged']> {
  const { planes, localDesktops, then } = deps;
  return async (desktopId, change) => {
    await planes.desktopChanged(desktopId);
    if (change === 'removed') await localDesktops?.remove(desktopId);
    if (change === 'changed') await localDesktops?.reconcile(desktopId); // given away: HOME goes
    await then?.(desktopId, change);
  };
}
