// The connection arguments the gateway announces in `args` after `select vnc`, in a fixed
// order (guacd's VNC order, keeping only the ones this gateway honours), and their parsing
// into settings. `connect` values are mapped to these names by position, exactly as guacd does.
export const VNC_ARG_NAMES = [
  'hostname',
  'port',
  'read-only',
  'disable-display-resize',
  'password',
  'autoretry',
  'disable-copy',
  'disable-paste',
] as const;

export type VncArgName = (typeof VNC_ARG_NAMES)[number];

export interface VncSettings {
  hostname: string;
  port: number;
  password: string | undefined;
  /** Per browser: input from this browser is ignored. */
  readOnly: boolean;
  /** Browser `size` instructions do not resize the remote desktop. */
  disableDisplayResize: boolean;
  /** Extra connection attempts when the VNC server cannot be reached. */
  autoretry: number;
  /** Remote clipboard changes are not sent to the browser. */
  disableCopy: boolean;
  /** Clipboard data from the browser is not sent to the remote desktop. */
  disablePaste: boolean;
}

export class VncArgsError extends Error {
  override name = 'VncArgsError';
}

const DEFAULT_VNC_PORT = 5900;

/** guacd treats exactly "true" as true; anything else (including "") is false. */
const flag = (value: string | undefined): boolean => value === 'true';

function integer(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) {
    throw new VncArgsError(
      `Connection argument "${name}" must be a whole number from 0 to ${String(max)}, got "${value}".`,
    );
  }
  return Number(value);
}

/**
 * `requireHostname` is false for a browser joining a running connection: like guacd, only the
 * per-browser settings (read-only, clipboard, resize) of a joiner's `connect` apply.
 */
export function parseVncSettings(
  args: ReadonlyMap<string, string>,
  options: { requireHostname: boolean } = { requireHostname: true },
): VncSettings {
  const hostname = args.get('hostname') ?? '';
  if (hostname === '' && options.requireHostname) {
    throw new VncArgsError(
      'Connection argument "hostname" is empty: pass the VNC server host (e.g. 127.0.0.1) in connect.',
    );
  }
  const password = args.get('password');
  return {
    hostname,
    port: integer('port', args.get('port'), DEFAULT_VNC_PORT, 65535),
    password: password === undefined || password === '' ? undefined : password,
    readOnly: flag(args.get('read-only')),
    disableDisplayResize: flag(args.get('disable-display-resize')),
    autoretry: integer('autoretry', args.get('autoretry'), 0, 20),
    disableCopy: flag(args.get('disable-copy')),
    disablePaste: flag(args.get('disable-paste')),
  };
}
