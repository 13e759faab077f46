// Where a new connection's VNC server is, from the client's `hostname` and `port`. TCP targets
// are whatever the client names (guacd does the same: whoever can reach the gateway chooses the
// desktop). A Unix-socket target is different: it can only be one the gateway was given
// in-process by whoever started it (`vncUnixSockets`, e.g. `serve` for the Xvnc it started), so
// no client can make the gateway open other sockets on this host (a Docker or X socket, another
// user's desktop).
import { isAbsolute, resolve } from 'node:path';
import type { RfbTarget } from '../rfb/index.js';
import { VncArgsError, type VncSettings } from './vncArgs.js';

/** A client names a Unix-socket VNC server by sending its absolute path as `hostname`. */
export function namesUnixSocket(hostname: string): boolean {
  return hostname.startsWith('/');
}

export class VncTargets {
  private readonly unixSockets = new Set<string>();

  constructor(unixSockets: readonly string[] = []) {
    for (const path of unixSockets) this.allow(path);
  }

  /**
   * Lets clients name one more Unix-socket VNC server (a desktop started after the gateway, e.g.
   * on demand); returns how to take that back when the desktop stops.
   */
  allow(path: string): () => void {
    if (!isAbsolute(path)) {
      throw new Error(
        `vncUnixSockets must hold absolute paths; got "${path}". Pass the path the VNC server listens on, e.g. LocalDesktop.rfbPath.`,
      );
    }
    const resolved = resolve(path);
    this.unixSockets.add(resolved);
    return () => this.unixSockets.delete(resolved);
  }

  resolve(settings: VncSettings): RfbTarget {
    if (!namesUnixSocket(settings.hostname)) {
      return { host: settings.hostname, port: settings.port };
    }
    // Exact match only: no normalising of what the client sent (`/a/../b`, symlinks).
    if (this.unixSockets.has(settings.hostname)) return { path: settings.hostname };
    throw new VncArgsError(
      'Connection argument "hostname" names a Unix socket this gateway was not started with; it connects over Unix sockets only to the VNC servers its operator listed (vncUnixSockets). Use a TCP host and port.',
    );
  }
}
