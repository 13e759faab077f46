// The three ways the bridge reaches a desktop, started for a test with real parts:
//   gateway-xvnc — our embedded gateway (Unix socket, join secret, as `serve` runs it) → Xvnc;
//   guacd-xvnc   — Apache guacd → the same kind of Xvnc (loopback TCP, VNC password);
//   guacd-xrdp   — Apache guacd → xrdp + xorgxrdp (an RDP login, its Xorg session).
// Each gives the bridge's `guacd` address and connection parameters (and the equivalent
// `serve` flags and environment), and the X environment to observe the desktop from outside
// (for RDP, the session's Xorg display, known once the bridge has logged in). When guacd or
// xrdp is missing the path is a skip reason (a failure under OC_REQUIRE_GUACD=1, see guacd.ts).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, startLocalDesktop, JOIN_SECRET_ARG } from '@overlay-companion/gateway';
import { RDP_DEFAULTS } from '../tunnel/upstream.js';
import type { ConnectionConfig, GuacdAddress } from '../config.js';
import { silentLogger } from '../logger.js';
import { FALLBACK_DESKTOP_SIZE } from '../desktops/desktopSize.js';
import { openUpstream } from '../tunnel/upstream.js';
import { findGuacd, startTestGuacd } from './guacd.js';
import { registerSecret } from './testLogs.js';
import { startTestXrdp, xrdpMissing } from './xrdp.js';

export const DESKTOP_PATHS = ['gateway-xvnc', 'guacd-xvnc', 'guacd-xrdp'] as const;
const RDP_TEST_KEYBOARD = 'de-de-qwertz';
export type DesktopPathName = (typeof DESKTOP_PATHS)[number];

export interface DesktopPathOptions {
  /** The desktop xterm's command, e.g. ['sh', '-c', 'cat > FILE']; default a shell. */
  xtermCommand?: string[];
}

export interface DesktopPath {
  name: DesktopPathName;
  /** What the bridge config needs (startBridge's `guacd` and `connection`). */
  guacd: GuacdAddress;
  connection: ConnectionConfig;
  /**
   * `serve` flags and environment for the same desktop (guacd paths only: the gateway path's
   * serve runs its own desktop with `--desktop local`).
   */
  serve: { args: string[]; env: Record<string, string> } | undefined;
  /** X clients' environment for the desktop; for RDP, waits for the bridge's login first. */
  xEnv(): Promise<NodeJS.ProcessEnv>;
  /**
   * Makes sure the desktop is there to watch before any bridge connects (for RDP: logs in
   * through guacd with a connection of its own, which leaves once the session shows), and
   * returns its X environment.
   */
  startSession(): Promise<NodeJS.ProcessEnv>;
  stop(): Promise<void>;
}

/** Why a path cannot run on this machine (guacd or xrdp missing), without starting anything. */
export function desktopPathMissing(name: DesktopPathName): string | undefined {
  if (name === 'gateway-xvnc') return undefined;
  const guacd = findGuacd();
  if ('skip' in guacd) return guacd.skip;
  return name === 'guacd-xrdp' ? xrdpMissing() : undefined;
}

export async function startDesktopPath(
  name: DesktopPathName,
  options: DesktopPathOptions = {},
): Promise<DesktopPath | { skip: string }> {
  switch (name) {
    case 'gateway-xvnc':
      return gatewayXvnc(options);
    case 'guacd-xvnc':
      return guacdXvnc(options);
    case 'guacd-xrdp':
      return guacdXrdp(options);
  }
}

function xterm(options: DesktopPathOptions) {
  return options.xtermCommand === undefined
    ? true
    : { command: options.xtermCommand, geometry: '100x30+20+20' };
}

async function gatewayXvnc(options: DesktopPathOptions): Promise<DesktopPath> {
  const workDir = await mkdtemp(join(tmpdir(), 'oc-path-'));
  const password = randomBytes(6).toString('base64url');
  const joinSecret = randomBytes(32).toString('base64url');
  registerSecret(joinSecret);
  const desktop = await startLocalDesktop({
    password,
    windowManager: true,
    xterm: xterm(options),
  });
  const gateway = await startGateway({
    path: join(workDir, 'gateway.sock'),
    joinSecret,
    vncUnixSockets: [desktop.rfbPath],
    logger: silentLogger(),
  });
  return {
    name: 'gateway-xvnc',
    guacd: { path: gateway.path },
    connection: {
      protocol: 'vnc',
      params: { hostname: desktop.rfbPath, password, [JOIN_SECRET_ARG]: joinSecret },
    },
    serve: undefined,
    xEnv: () => Promise.resolve(desktop.env),
    startSession: () => Promise.resolve(desktop.env),
    stop: async () => {
      await gateway.close();
      await desktop.stop();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

async function guacdXvnc(options: DesktopPathOptions): Promise<DesktopPath | { skip: string }> {
  const guacd = await startTestGuacd();
  if ('skip' in guacd) return guacd;
  const password = randomBytes(6).toString('base64url');
  const desktop = await startLocalDesktop({
    password,
    windowManager: true,
    rfbTcp: true,
    xterm: xterm(options),
  }).catch(async (err: unknown) => {
    await guacd.stop();
    throw err;
  });
  const vnc = `${desktop.host}:${desktop.port}`;
  return {
    name: 'guacd-xvnc',
    guacd: { host: guacd.host, port: guacd.port },
    connection: {
      protocol: 'vnc',
      params: { hostname: desktop.host, port: String(desktop.port), password },
    },
    serve: {
      args: ['--guacd', `${guacd.host}:${guacd.port}`, '--vnc', vnc],
      env: { OC_VNC_PASSWORD: password },
    },
    xEnv: () => Promise.resolve(desktop.env),
    startSession: () => Promise.resolve(desktop.env),
    stop: async () => {
      await guacd.stop();
      await desktop.stop();
    },
  };
}

async function guacdXrdp(options: DesktopPathOptions): Promise<DesktopPath | { skip: string }> {
  const guacd = await startTestGuacd();
  if ('skip' in guacd) return guacd;
  const xrdp = await startTestXrdp(
    options.xtermCommand === undefined ? {} : { xtermCommand: options.xtermCommand },
  ).catch(async (err: unknown) => {
    await guacd.stop();
    throw err;
  });
  if ('skip' in xrdp) {
    await guacd.stop();
    return xrdp;
  }
  const address = { host: guacd.host, port: guacd.port };
  const connection: ConnectionConfig = {
    protocol: 'rdp',
    params: {
      ...RDP_DEFAULTS,
      hostname: xrdp.host,
      port: String(xrdp.port),
      username: xrdp.username,
      password: xrdp.password,
      'server-layout': RDP_TEST_KEYBOARD,
    },
  };
  return {
    name: 'guacd-xrdp',
    guacd: address,
    // The parameters `serve --rdp … --rdp-keyboard de-de-qwertz` gives guacd: a layout with
    // ä in it, which xrdp 0.9 needs to type one (desktopSource.ts, RDP_KEYBOARDS).
    connection,
    serve: {
      args: [
        '--guacd',
        `${guacd.host}:${guacd.port}`,
        '--rdp',
        `${xrdp.host}:${xrdp.port}`,
        '--rdp-keyboard',
        RDP_TEST_KEYBOARD,
      ],
      env: { OC_RDP_USER: xrdp.username, OC_RDP_PASSWORD: xrdp.password },
    },
    xEnv: async () => (await xrdp.session()).env,
    startSession: async () => {
      const login = await openUpstream(address, {
        select: 'rdp',
        params: connection.params,
        size: FALLBACK_DESKTOP_SIZE,
        timeoutMs: 15_000,
      });
      // Frames are acknowledged, or guacd holds the next ones back.
      login.conn.on('instruction', (i) => {
        if (i.opcode === 'sync') login.conn.send('sync', i.args[0] ?? '0');
      });
      try {
        return (await xrdp.session(60_000)).env;
      } finally {
        login.conn.send('disconnect');
        login.conn.close();
      }
    },
    stop: async () => {
      await guacd.stop();
      await xrdp.stop();
    },
  };
}
