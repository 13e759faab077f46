// Turns the chosen desktop source into what the tunnel needs: the guacd protocol and its
// connection arguments. `--desktop local` also starts the desktop (Xvnc, openbox, xterm) and
// hands back how to stop it.
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
      // VNC authentication uses at most 8 characters; a random one per run keeps other local
      // users off the desktop even though Xvnc listens on loopback only.
      const password = randomBytes(6).toString('base64url');
      let desktop: LocalDesktop;
      try {
        desktop = await startLocalDesktop({ xterm: true, windowManager: true, password });
      } catch (err) {
        throw new StartupError(`The local desktop could not start: ${errorMessage(err)}`);
      }
      return {
        connection: {
          protocol: 'vnc',
          params: { hostname: desktop.host, port: String(desktop.port), password },
        },
        description: `local desktop on display ${desktop.display} (VNC ${desktop.host}:${desktop.port})`,
        desktop,
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
      };
  }
}
