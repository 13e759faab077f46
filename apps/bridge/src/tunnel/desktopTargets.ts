// How the tunnel reaches each desktop record (TunnelDesktops): who may open which desktop (the
// ticket's, else the person's default; a view grant opens it read-only) and the connection
// target by kind — a VNC server through the embedded gateway, VNC or RDP through Apache guacd
// with the desktop's own credentials (unsealed here, in memory only, never logged), or a local
// sandboxed desktop started on demand (localDesktopPool.ts). Desktops `serve` started itself (the
// CLI's --desktop local / --vnc / --rdp) come with their target fixed.
import type { Logger } from 'pino';
import type { ConnectionConfig, GuacdAddress } from '../config.js';
import type { Store } from '../store/types.js';
import type { TunnelDesktops } from './tunnelEndpoint.js';
import type { TunnelTarget } from './tunnelSession.js';
import { RDP_DEFAULTS } from './upstream.js';
import type { DesktopSecretBox } from '../desktops/credentials.js';
import type { DesktopDirectory, DesktopEntry } from '../desktops/desktopDirectory.js';
import type { LocalDesktopPool } from '../desktops/localDesktopPool.js';
import { DesktopReachError } from '../desktops/errors.js';
import { memberDesktopAddress } from '../desktops/memberHosts.js';
import { runningLimitFor } from '../desktops/runningLimit.js';
import { socketDesktop } from '../desktops/socketDesktop.js';

export interface DesktopTargetsOptions {
  store: Pick<Store, 'people' | 'settings'>;
  directory: DesktopDirectory;
  logger: Logger;
  secretBox?: DesktopSecretBox | undefined;
  /** The embedded gateway, for `vnc` and `local` desktops (its join secret goes with each). */
  gateway?: { address: GuacdAddress; joinSecretArg: string; joinSecret: string } | undefined;
  /** Apache guacd (serve --guacd), for `guacd-vnc` and `guacd-rdp` desktops. */
  guacd?: GuacdAddress | undefined;
  /** Local desktops started on demand. */
  localDesktops?: LocalDesktopPool | undefined;
  /** Desktops whose target serve fixed at start (the CLI's desktop). */
  fixed?: ReadonlyMap<string, TunnelTarget>;
  /** guacd's drive-redirection parameters for an RDP desktop (files/rdpDrive.ts), if any. */
  rdpDrive?: ((desktopId: string) => Record<string, string>) | undefined;
}

export class DesktopTargetError extends DesktopReachError {
  override name = 'DesktopTargetError';
}

export function desktopTargets(options: DesktopTargetsOptions): TunnelDesktops {
  const { store, directory } = options;
  return {
    async resolve(personId, desktopId) {
      const found = await socketDesktop(store, directory, personId, desktopId);
      if (!found.ok) return found;
      const readOnly =
        found.desktop.access === 'view' || found.desktop.entry.record.params.read_only === true;
      return { ok: true, desktopId: found.desktop.entry.record.id, readOnly };
    },
    async target(desktopId) {
      const fixed = options.fixed?.get(desktopId);
      if (fixed !== undefined) return fixed;
      const entry = await directory.get(desktopId);
      if (entry === undefined) throw new DesktopTargetError(`No desktop ${desktopId}.`);
      return targetOf(entry, options);
    },
  };
}

async function targetOf(
  entry: DesktopEntry,
  options: DesktopTargetsOptions,
): Promise<TunnelTarget> {
  const { record } = entry;
  const params = { ...record.params };
  // A desktop whose host a member chose must not turn the bridge (or guacd) against this machine
  // or its cloud's metadata service: its host is checked and pinned to the address checked
  // (memberHosts.ts). An admin's choice is taken as configured, whoever owns the desktop.
  if (record.kind !== 'local' && params.host !== undefined) {
    if (record.targetSetByMember)
      params.host = await memberDesktopAddress(params.host, record.name);
  }
  const password =
    record.secret === null || options.secretBox === undefined
      ? undefined
      : options.secretBox.unseal(record.id, record.secret).password;
  const withPassword = (p: Record<string, string>): Record<string, string> =>
    password === undefined || password === '' ? p : { ...p, password };
  const readOnly: Record<string, string> = params.read_only === true ? { 'read-only': 'true' } : {};
  switch (record.kind) {
    case 'local': {
      const gateway = needGateway(options, record.name);
      const pool = options.localDesktops;
      if (pool === undefined)
        throw new DesktopTargetError(
          `Local desktops are not available on this bridge (${record.name}).`,
        );
      // A member's local desktops are limited in number running at once (runningLimit.ts).
      const limit = await runningLimitFor(options.store, record.ownerId);
      const running = await pool.ensure(record.id, params, record.ownerId, limit);
      return {
        guacd: gateway.address,
        connection: vnc(gateway, { hostname: running.rfbPath, password: running.password }),
      };
    }
    case 'vnc': {
      const gateway = needGateway(options, record.name);
      return {
        guacd: gateway.address,
        connection: vnc(
          gateway,
          withPassword({
            hostname: params.host ?? '',
            port: String(params.port ?? 5900),
            ...readOnly,
          }),
        ),
      };
    }
    case 'guacd-vnc':
      return {
        guacd: needGuacd(options, record.name),
        connection: {
          protocol: 'vnc',
          params: withPassword({
            hostname: params.host ?? '',
            port: String(params.port ?? 5900),
            ...readOnly,
          }),
        },
      };
    case 'guacd-rdp': {
      const rdp: Record<string, string> = {
        ...RDP_DEFAULTS,
        hostname: params.host ?? '',
        port: String(params.port ?? 3389),
        username: params.username ?? '',
        password: password ?? '',
        ...readOnly,
      };
      if (params.domain !== undefined) rdp.domain = params.domain;
      if (params.security !== undefined) rdp.security = params.security;
      if (params.keyboard !== undefined) rdp['server-layout'] = params.keyboard;
      Object.assign(rdp, options.rdpDrive?.(record.id));
      return {
        guacd: needGuacd(options, record.name),
        connection: { protocol: 'rdp', params: rdp },
      };
    }
  }
}

function vnc(
  gateway: NonNullable<DesktopTargetsOptions['gateway']>,
  params: Record<string, string>,
): ConnectionConfig {
  return { protocol: 'vnc', params: { ...params, [gateway.joinSecretArg]: gateway.joinSecret } };
}

function needGateway(
  options: DesktopTargetsOptions,
  name: string,
): NonNullable<DesktopTargetsOptions['gateway']> {
  if (options.gateway === undefined)
    throw new DesktopTargetError(
      `The desktop "${name}" goes through the embedded gateway, and this bridge runs without one (serve --guacd): make it a guacd-vnc desktop.`,
    );
  return options.gateway;
}

function needGuacd(options: DesktopTargetsOptions, name: string): GuacdAddress {
  if (options.guacd === undefined)
    throw new DesktopTargetError(
      `The desktop "${name}" needs Apache guacd: start the bridge with --guacd HOST:PORT.`,
    );
  return options.guacd;
}
