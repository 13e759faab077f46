// `overlay-companion serve`: starts, in order, the desktop (for --desktop local), the embedded
// gateway (unless --guacd names a real guacd) and the bridge, and returns one stop() that ends
// them in reverse. If a later part fails to start, the earlier ones are stopped before the
// error is thrown, so a failed start leaves no Xvnc behind.
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { startGateway } from '@overlay-companion/gateway';
import type { HostPort } from '../config.js';
import { StartupError, errorMessage } from '../errors.js';
import type { LoadedToken } from '../auth/mcpToken.js';
import { prepareMcpAuth } from '../mcp/serveOptions.js';
import { startWithControlPlane, type ControlledBridge } from '../mcp/startWithControlPlane.js';
import type { ServeOptions } from './args.js';
import { prepareSource, type PreparedSource } from './desktopSource.js';
import type { HeadlessViewer } from '../headless/headlessViewer.js';

export interface ServeHandle {
  /** The bridge with the MCP control plane (/mcp, /ws/viewer). */
  bridge: ControlledBridge;
  /** The MCP bearer token (undefined under --no-auth). */
  mcpToken: LoadedToken | undefined;
  source: PreparedSource;
  guacd: HostPort;
  /** True when the gateway runs inside this process. */
  embeddedGateway: boolean;
  /** The headless Chromium viewer (--headless-viewer), if started. */
  headlessViewer: HeadlessViewer | undefined;
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

  try {
    const dataDir = resolve(options.dataDir);
    try {
      await mkdir(dataDir, { recursive: true });
    } catch (err) {
      throw new StartupError(
        `Cannot create the data directory ${dataDir}: ${errorMessage(err)}. Pick another with --data-dir.`,
      );
    }

    const source = await prepareSource(options.source);
    const desktop = source.desktop;
    if (desktop) stops.push(() => desktop.stop());

    let guacd = options.guacd;
    if (!guacd) {
      try {
        const gateway = await startGateway({
          host: '127.0.0.1',
          port: 0,
          logger: logger.child({ part: 'gateway' }),
        });
        stops.push(() => gateway.close());
        guacd = { host: gateway.host, port: gateway.port };
      } catch (err) {
        throw new StartupError(`The embedded gateway could not start: ${errorMessage(err)}`);
      }
    }

    const mcp = await prepareMcpAuth(options, dataDir);
    const bridge = await startWithControlPlane(
      {
        host: options.host,
        port: options.port,
        dataDir,
        ...(options.webRoot === undefined ? {} : { webRoot: resolve(options.webRoot) }),
        guacd,
        connection: source.connection,
      },
      { auth: mcp.auth, initialMode: options.mode, publicUrl: options.publicUrl },
      { logger, desktop: desktop ? { display: desktop.display } : undefined },
    );
    stops.push(() => bridge.close());
    let headlessViewer: HeadlessViewer | undefined;
    if (options.headlessViewer === true) {
      // Loaded only here: playwright-core takes long to import, and most bridges never need it.
      const { startHeadlessViewer } = await import('../headless/headlessViewer.js');
      const viewer = await startHeadlessViewer({
        bridgeUrl: bridge.url,
        logger: logger.child({ part: 'headless-viewer' }),
      });
      // Pushed last, so it closes first: the page leaves before the bridge goes away.
      stops.push(() => viewer.stop());
      headlessViewer = viewer;
    }

    let stopping: Promise<void> | undefined;
    return {
      bridge,
      mcpToken: mcp.token,
      source,
      guacd,
      embeddedGateway: options.guacd === undefined,
      headlessViewer,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
