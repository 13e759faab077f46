// Turns the chosen desktop source into what the tunnel needs: the guacd protocol and its
// connection arguments. `--desktop local` also starts the desktop (Xvnc, openbox, xterm) and
// hands back how to stop it, and the Unix socket of its VNC server, which only the embedded
// gateway started by this process may reach (GatewayOptions.vncUnixSockets).
import { randomBytes } from 'node:crypto';
import { startLocalDesktop, type LocalDesktop } from '@overlay-companion/gateway';
import type { Logger } from 'pino';
import type { CliDesktopHome } from '../desktops/cliDesktopHome.js';
import { DesktopSupervisor } from '../desktops/desktopSupervisor.js';
import type { ConnectionConfig } from '../config.js';
import { StartupError, errorMessage } from '../errors.js';
import type { DesktopSize } from '../desktops/desktopSize.js';
import { RDP_DEFAULTS } from '../tunnel/upstream.js';
import type { DesktopSource } from './args.js';
import type { DesktopKind, DesktopParams } from '@overlay-companion/protocol';

export interface PreparedSource {
  /** The connection as it is at start (a restarted local desktop moves: see `supervisor`). */
  connection: ConnectionConfig;
  /** The local desktop kept running (restarted when it dies), for --desktop local. */
  supervisor?: DesktopSupervisor;
  /** Tells the local desktop how to allow a restarted desktop's socket on the gateway. */
  allowSocketsWith?: (allow: (path: string) => () => void) => void;
  /** What its desktop record says: kind and the non-secret parameters (no credentials). */
  record: { kind: DesktopKind; params: DesktopParams; password?: string | undefined };
  /** A one-line description for the console (no credentials). */
  description: string;
  /** The local desktop this process started, if any. */
  desktop: LocalDesktop | undefined;
  /**
   * Unix-socket VNC servers the embedded gateway must be allowed to reach for this source
   * (pass as `vncUnixSockets` to startGateway); empty for the other sources.
   */
  vncUnixSockets: string[];
}

/**
 * `size` is the operator's --desktop-size, which the local desktop starts at (the tunnel keeps
 * every other source at it).
 */
export async function prepareSource(
  source: DesktopSource,
  size: DesktopSize | undefined,
  /** Whether the bridge reaches desktops through Apache guacd (serve --guacd). */
  guacd: boolean,
  logger: Logger,
  /** The local desktop's HOME and user, as a desktop record's (absent: a fresh HOME each start). */
  home?: CliDesktopHome,
): Promise<PreparedSource> {
  switch (source.kind) {
    case 'local': {
      // The desktop's VNC server listens only on a 0600 Unix socket in a 0700 dir; a random
      // password per run (VNC authentication uses at most 8 characters) is a second lock.
      const password = randomBytes(6).toString('base64url');
      // The gateway is started after the desktop: a restarted desktop's socket is allowed on
      // it through `allowSocket`, set by serve once the gateway runs.
      const late: { allow?: (path: string) => () => void } = {};
      let supervisor: DesktopSupervisor;
      try {
        supervisor = await DesktopSupervisor.start({
          start: async () => {
            const desktop = await startLocalDesktop({
              xterm: true,
              windowManager: true,
              password,
              // The AI types into this desktop's shell: it runs in a sandbox, unprivileged, with
              // none of the bridge's environment, files or processes in reach (P8), as a uid of
              // its own with its HOME kept (cliDesktopHome.ts).
              sandbox: (await home?.take()) ?? true,
              ...(size === undefined ? {} : { width: size.width, height: size.height }),
            });
            void desktop.exited.then(() => home?.release());
            return desktop;
          },
          allowSocket: (path) => late.allow?.(path) ?? (() => undefined),
          logger: logger.child({ part: 'local-desktop' }),
        });
      } catch (err) {
        throw new StartupError(`The local desktop could not start: ${errorMessage(err)}`);
      }
      const desktop = supervisor.current;
      return {
        supervisor,
        allowSocketsWith: (allow) => {
          late.allow = allow;
        },
        // The gateway reaches a Unix-socket VNC server named by its path as `hostname`.
        connection: { protocol: 'vnc', params: { hostname: desktop.rfbPath, password } },
        record: { kind: 'local', params: {} },
        // X clients outside this process need the display's cookie: say where it is (the
        // path only; the file is the owner's alone), and where the desktop's files are kept.
        description: `local desktop on display ${desktop.display} (XAUTHORITY=${desktop.xauthority};${desktop.sandbox === undefined ? '' : ` HOME=${desktop.sandbox.homeDir};`} VNC on a Unix socket, no TCP port)`,
        desktop,
        vncUnixSockets: [desktop.rfbPath],
      };
    }
    case 'vnc':
      return {
        connection: {
          protocol: 'vnc',
          params: {
            hostname: source.vnc.host,
            port: String(source.vnc.port),
            ...(source.password === undefined ? {} : { password: source.password }),
          },
        },
        record: {
          kind: guacd ? 'guacd-vnc' : 'vnc',
          params: { host: source.vnc.host, port: source.vnc.port },
          password: source.password,
        },
        description: `VNC server ${source.vnc.host}:${source.vnc.port}`,
        desktop: undefined,
        vncUnixSockets: [],
      };
    case 'rdp':
      return {
        connection: {
          protocol: 'rdp',
          params: {
            ...RDP_DEFAULTS,
            hostname: source.rdp.host,
            port: String(source.rdp.port),
            username: source.username ?? '',
            password: source.password ?? '',
            ...(source.keyboard === undefined ? {} : { 'server-layout': source.keyboard }),
          },
        },
        record: {
          kind: 'guacd-rdp',
          params: {
            host: source.rdp.host,
            port: source.rdp.port,
            ...(source.username === undefined ? {} : { username: source.username }),
            ...(source.keyboard === undefined ? {} : { keyboard: source.keyboard }),
          },
          password: source.password,
        },
        description: `RDP server ${source.rdp.host}:${source.rdp.port}`,
        desktop: undefined,
        vncUnixSockets: [],
      };
  }
}
