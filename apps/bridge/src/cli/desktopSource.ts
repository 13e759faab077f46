// Turns the chosen desktop source into what the tunnel needs: the guacd protocol and its
// connection arguments. `--desktop local` also starts the desktop (Xvnc, openbox, xterm) and
// hands back how to stop it, and the Unix socket of its VNC server, which only the embedded
// gateway started by this process may reach (GatewayOptions.vncUnixSockets).
import { randomBytes } from 'node:crypto';
import { startLocalDesktop, type LocalDesktop } from '@overlay-companion/gateway';
import type { ConnectionConfig } from '../config.js';
import { StartupError, errorMessage } from '../errors.js';
import type { DesktopSource } from './args.js';

export interface PreparedSource {
  connection: ConnectionConfig;
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

// RDP arguments for Apache guacd: accept whatever security the server offers (xrdp negotiates
// TLS, never NLA) and its self-signed certificate, and resize the remote session to the
// browser window through the Display Update channel.
const RDP_DEFAULTS: Record<string, string> = {
  security: 'any',
  'ignore-cert': 'true',
  'resize-method': 'display-update',
  'color-depth': '24',
  'disable-audio': 'true',
};

export async function prepareSource(source: DesktopSource): Promise<PreparedSource> {
  switch (source.kind) {
    case 'local': {
      // The desktop's VNC server listens only on a 0600 Unix socket in a 0700 dir; a random
      // password per run (VNC authentication uses at most 8 characters) is a second lock.
      const password = randomBytes(6).toString('base64url');
      let desktop: LocalDesktop;
      try {
        desktop = await startLocalDesktop({ xterm: true, windowManager: true, password });
      } catch (err) {
        throw new StartupError(`The local desktop could not start: ${errorMessage(err)}`);
      }
      return {
        // The gateway reaches a Unix-socket VNC server named by its path as `hostname`.
        connection: { protocol: 'vnc', params: { hostname: desktop.rfbPath, password } },
        // X clients outside this process need the display's cookie: say where it is (the
        // path only; the file is the owner's alone).
        description: `local desktop on display ${desktop.display} (XAUTHORITY=${desktop.xauthority}; VNC on a Unix socket, no TCP port)`,
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
          },
        },
        description: `RDP server ${source.rdp.host}:${source.rdp.port}`,
        desktop: undefined,
        vncUnixSockets: [],
      };
  }
}
