// The routes behind sign-in that the bridge mounts beside the desktop control's (bridge.ts): the
// /api routes (people, tokens, desktops, layouts, audit…), file transfer to and from desktops, and
// the recordings' routes — each a mount function for createApp, in this order.
import type { Hono } from 'hono';
import type { LocalDesktop } from '@overlay-companion/gateway';
import type { Logger } from 'pino';
import { mountApi, type ApiDeps } from '../api/index.js';
import type { DesktopDirectory } from '../desktops/desktopDirectory.js';
import type { LocalDesktopPool } from '../desktops/localDesktopPool.js';
import { mountFileRoutes } from '../files/routes.js';
import { TransferPolicies } from '../files/transferPermission.js';
import { transferTargets } from '../files/transferTargets.js';
import type { BridgeEnv } from '../http/env.js';
import type { Recordings } from '../recordings/recordingLifecycle.js';
import { mountRecordingRoutes } from '../recordings/routes.js';

/** File transfer: tests lower the size limit and raise the space kept free. */
export interface FileSetup {
  maxBytes?: number;
  reserveBytes?: number;
  /** A transfer with no byte moving for this long ends (files/transferIdle.ts). */
  idleMs?: number;
  /** Bytes the bridge lets into one RDP desktop's drive folder (files/rdpDrive.ts). */
  rdpDriveQuotaBytes?: number;
  /** OC_RDP_DRIVE_DIR: RDP desktops' drive folders (files/rdpDrive.ts); absent: none. */
  rdpDriveRoot?: string | undefined;
  /** The command line's local desktop as it runs now (serve's supervisor). */
  cliLocal?: (() => LocalDesktop | undefined) | undefined;
}

export function signedInRoutes(deps: {
  api: ApiDeps;
  directory: DesktopDirectory;
  localDesktops: LocalDesktopPool | undefined;
  files: FileSetup | undefined;
  recordings: Recordings;
  logger: Logger;
}): Array<(app: Hono<BridgeEnv>) => void> {
  const { api, directory, localDesktops, files, recordings, logger } = deps;
  const { access, planes } = api;
  return [
    (app) => mountApi(app, api),
    (app) =>
      mountFileRoutes(app, {
        access,
        folderOf: transferTargets({
          pool: localDesktops,
          rdpDriveRoot: files?.rdpDriveRoot,
          cliLocal:
            files?.cliLocal === undefined
              ? undefined
              : { id: () => directory.cliDesktopId(), desktop: files.cliLocal },
          reserveBytes: files?.reserveBytes,
          rdpDriveQuotaBytes: files?.rdpDriveQuotaBytes,
        }),
        policies: new TransferPolicies(access.store.transferPolicy),
        logger: logger.child({ part: 'files' }),
        maxBytes: files?.maxBytes,
        idleMs: files?.idleMs,
      }),
    (app) =>
      mountRecordingRoutes(app, {
        access,
        recordings,
        planes,
        logger: logger.child({ part: 'api' }),
      }),
  ];
}
