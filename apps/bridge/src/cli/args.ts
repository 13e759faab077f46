// Turns argv into one validated command with node:util parseArgs. Every mistake becomes a
// UsageError whose message names the flag and the fix; the caller prints it with the usage
// text and exits 2. Credentials come from the environment so they never show in `ps`.
import { parseArgs } from 'node:util';
import { RDP_KEYBOARDS, type RdpKeyboard } from '@overlay-companion/protocol';
import { parseHostPort, type HostPort } from '../config.js';
import { parseDesktopSize, type DesktopSize } from '../desktops/desktopSize.js';
import { ConfigError, UsageError } from '../errors.js';
import { parseLogLevel, type LogLevel } from '../logger.js';
import { parseMetricsOpenLoopback, parseMetricsToken } from '../perimeter/metricsAccess.js';
import { parseS3Target, type S3Target } from '../recordings/storage/s3Config.js';
import { parseStdioArgs, type StdioCommandOptions } from '../stdio/command.js';
import { parseGatewayPool, parsePoolSecret, type GatewayPoolOption } from './gatewayPoolOptions.js';
import { CONTROL_PLANE_FLAGS, parseSignInFlags, type SignInServeOptions } from './serveOptions.js';

export type DesktopSource =
  | { kind: 'local' }
  | { kind: 'vnc'; vnc: HostPort; password: string | undefined }
  | {
      kind: 'rdp';
      rdp: HostPort;
      username: string | undefined;
      password: string | undefined;
      /** guacd's `server-layout` (--rdp-keyboard); undefined: guacd's default, en-us-qwerty. */
      keyboard?: RdpKeyboard;
    };

export interface ServeOptions extends SignInServeOptions {
  host: string;
  /** 0 = a free port. */
  port: number;
  dataDir: string;
  webRoot: string | undefined;
  source: DesktopSource;
  /** A real guacd; when absent the embedded gateway is started in-process. */
  guacd: HostPort | undefined;
  /** --gateways / OC_GATEWAYS (+ OC_GATEWAY_SECRET): the site's gateway pool. */
  gatewayPool?: GatewayPoolOption;
  /** --desktop-size, else OC_DESKTOP_SIZE: the desktop's size, fixed by the operator. */
  desktopSize?: DesktopSize;
  /** --desktop-name: the name of the desktop record the source above makes ("Desktop"). */
  desktopName?: string;
  /**
   * --local-desktops: `shared` (one local desktop, the source's) or `per-person` (each person
   * also gets a sandboxed local desktop of their own, started when they first need it).
   */
  localDesktops?: 'shared' | 'per-person';
  /** --headless-viewer: keep a headless Chromium viewer open on the bridge (no person needed). */
  headlessViewer?: true;
  /** --record, else OC_RECORD=1: every desktop without a setting of its own is recorded. */
  record?: true;
  /** --recordings-s3 s3://BUCKET/PREFIX, else OC_RECORDINGS_S3_URL (+ OC_S3_*): where ended recordings are kept. */
  recordingsS3?: S3Target;
  /** --log-level, else OC_LOG_LEVEL; undefined means info. */
  logLevel?: LogLevel;
  /** OC_METRICS_TOKEN: /metrics needs it as a bearer token. */
  metricsToken?: string;
  /** OC_METRICS_OPEN_LOOPBACK=1: without a token, /metrics answers direct loopback callers. */
  metricsOpenLoopback?: true;
}

export interface GatewayCommandOptions {
  listen: HostPort;
  /** OC_GATEWAY_SECRET: serve only bridges that send it first (a pool gateway). */
  poolSecret?: string;
  /**
   * --tls-cert/--tls-key (OC_GATEWAY_TLS_CERT/KEY): serve TLS; --tls-client-ca
   * (OC_GATEWAY_TLS_CLIENT_CA): only clients with a certificate it signed. PEM file paths.
   */
  tls?: { certFile: string; keyFile: string; clientCaFile?: string };
  logLevel?: LogLevel;
}

export type Command =
  | { command: 'serve'; options: ServeOptions }
  | { command: 'gateway'; options: GatewayCommandOptions }
  | { command: 'stdio'; options: StdioCommandOptions }
  | { command: 'help' }
  | { command: 'version' };

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): Command {
  const [name, ...rest] = argv;
  switch (name) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return { command: 'help' };
    case 'version':
    case '--version':
      return { command: 'version' };
    case 'serve':
      return parseServe(rest, env);
    case 'gateway':
      return parseGateway(rest, env);
    case 'stdio': {
      const options = parseStdioArgs(rest);
      return options === 'help' ? { command: 'help' } : { command: 'stdio', options };
    }
    default:
      throw new UsageError(`Unknown command "${name}". Use "serve", "gateway" or "stdio".`);
  }
}

/** Runs a parseArgs call, turning its errors into UsageErrors. */
function flags<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    // parseArgs' messages already name the flag ("Unknown option '--prot'").
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

function hostPort(text: string, flag: string, allowPortZero = false): HostPort {
  try {
    return parseHostPort(text, flag, { allowPortZero });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

function parseServe(args: readonly string[], env: NodeJS.ProcessEnv): Command {
  const { values } = flags(() =>
    parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'web-root': { type: 'string' },
        desktop: { type: 'string' },
        vnc: { type: 'string' },
        rdp: { type: 'string' },
        guacd: { type: 'string' },
        gateways: { type: 'string' },
        'desktop-size': { type: 'string' },
        'rdp-keyboard': { type: 'string' },
        'desktop-name': { type: 'string' },
        'local-desktops': { type: 'string' },
        ...CONTROL_PLANE_FLAGS,
        'headless-viewer': { type: 'boolean' },
        record: { type: 'boolean' },
        'recordings-s3': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) return { command: 'help' };

  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '')
    throw new UsageError('--host needs an address, e.g. 127.0.0.1 or 0.0.0.0.');
  const portText = values.port ?? '8080';
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new UsageError(
      `--port expects a number from 0 to 65535 (0 picks a free port), got "${portText}".`,
    );
  }

  const chosen = (['desktop', 'vnc', 'rdp'] as const).filter((flag) => values[flag] !== undefined);
  if (chosen.length > 1) {
    throw new UsageError(
      `Choose one desktop source: ${chosen.map((f) => `--${f}`).join(' and ')} were both given.`,
    );
  }
  const guacd = values.guacd === undefined ? undefined : hostPort(values.guacd, '--guacd');
  const gatewayPool = parseGatewayPool(values.gateways, env);
  if (guacd !== undefined && gatewayPool !== undefined)
    throw new UsageError(
      '--guacd and --gateways were both given: list the guacd in --gateways as guacd://HOST:PORT.',
    );

  let source: DesktopSource;
  if (values.vnc !== undefined) {
    source = { kind: 'vnc', vnc: hostPort(values.vnc, '--vnc'), password: env.OC_VNC_PASSWORD };
  } else if (values.rdp !== undefined) {
    if (!guacd && !gatewayPool?.members.some((m) => m.kind === 'guacd')) {
      throw new UsageError(
        '--rdp needs a real guacd: add --guacd HOST:PORT, or a guacd://HOST:PORT in --gateways (the embedded gateway speaks VNC only).',
      );
    }
    source = {
      kind: 'rdp',
      rdp: hostPort(values.rdp, '--rdp'),
      username: env.OC_RDP_USER,
      password: env.OC_RDP_PASSWORD,
      ...rdpKeyboardOption(values['rdp-keyboard']),
    };
  } else {
    if (values['rdp-keyboard'] !== undefined)
      throw new UsageError('--rdp-keyboard is for --rdp desktops only.');
    const desktop = values.desktop ?? 'local';
    if (desktop !== 'local') {
      throw new UsageError(
        `--desktop only knows "local", got "${desktop}". For another machine use --vnc HOST:PORT or --guacd HOST:PORT --rdp HOST:PORT.`,
      );
    }
    source = { kind: 'local' };
  }

  const desktopName = values['desktop-name']?.trim();
  if (desktopName !== undefined && (desktopName === '' || desktopName.length > 100))
    throw new UsageError('--desktop-name needs a name of 1 to 100 characters, e.g. "Build box".');
  const localDesktops = values['local-desktops'];
  if (localDesktops !== undefined && localDesktops !== 'shared' && localDesktops !== 'per-person')
    throw new UsageError(
      `--local-desktops is "shared" (one desktop for everyone granted it) or "per-person" (each person gets their own sandboxed desktop), got "${localDesktops}".`,
    );

  return {
    command: 'serve',
    options: {
      host,
      port: Number(portText),
      ...(desktopName === undefined ? {} : { desktopName }),
      ...(localDesktops === undefined ? {} : { localDesktops }),
      dataDir: values['data-dir'] ?? './.data',
      webRoot: values['web-root'],
      source,
      guacd,
      ...(gatewayPool === undefined ? {} : { gatewayPool }),
      ...desktopSizeOption(values['desktop-size'], env),
      ...parseSignInFlags(values, env),
      // Only present when given, so option objects compared in tests gain no key by default.
      ...(values['headless-viewer'] === true ? { headlessViewer: true as const } : {}),
      ...(values.record === true || recordFromEnv(env.OC_RECORD) ? { record: true as const } : {}),
      ...usage(() => {
        const recordingsS3 = parseS3Target(values['recordings-s3'], env);
        return recordingsS3 === undefined ? {} : { recordingsS3 };
      }),
      ...logLevelOption(values['log-level'], env),
      ...usage(() => {
        const token = parseMetricsToken(env.OC_METRICS_TOKEN);
        const open = parseMetricsOpenLoopback(env.OC_METRICS_OPEN_LOOPBACK);
        return {
          ...(token === undefined ? {} : { metricsToken: token }),
          ...(open ? { metricsOpenLoopback: true as const } : {}),
        };
      }),
    },
  };
}

function parseGateway(args: readonly string[], env: NodeJS.ProcessEnv): Command {
  const { values } = flags(() =>
    parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        listen: { type: 'string' },
        'log-level': { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'tls-client-ca': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) return { command: 'help' };
  const tls = gatewayTlsFiles(values, env);
  return {
    command: 'gateway',
    options: {
      listen: hostPort(values.listen ?? '127.0.0.1:4822', '--listen', true),
      ...(tls === undefined ? {} : { tls }),
      ...usage(() => {
        const poolSecret = parsePoolSecret(env);
        return poolSecret === undefined ? {} : { poolSecret };
      }),
      ...logLevelOption(values['log-level'], {}),
    },
  };
}

/** Runs a check whose Error becomes a UsageError (its message already names the fix). */
function usage<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

function rdpKeyboardOption(flag: string | undefined): { keyboard?: RdpKeyboard } {
  if (flag === undefined) return {};
  const known = RDP_KEYBOARDS.find((layout) => layout === flag);
  if (known === undefined) {
    throw new UsageError(
      `--rdp-keyboard expects one of guacd's layouts (${RDP_KEYBOARDS.join(', ')}), got "${flag}".`,
    );
  }
  return { keyboard: known };
}

/** `--desktop-size` wins over OC_DESKTOP_SIZE; neither given adds no key. */
function desktopSizeOption(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): { desktopSize?: DesktopSize } {
  if (flag !== undefined)
    return { desktopSize: usage(() => parseDesktopSize(flag, '--desktop-size')) };
  const fromEnv = env.OC_DESKTOP_SIZE?.trim();
  if (fromEnv === undefined || fromEnv === '') return {};
  return { desktopSize: usage(() => parseDesktopSize(fromEnv, 'OC_DESKTOP_SIZE')) };
}

/** `--log-level` wins over OC_LOG_LEVEL; neither given adds no key. */
function logLevelOption(flag: string | undefined, env: NodeJS.ProcessEnv): { logLevel?: LogLevel } {
  if (flag !== undefined) return { logLevel: usage(() => parseLogLevel(flag, '--log-level')) };
  const fromEnv = env.OC_LOG_LEVEL?.trim();
  if (fromEnv === undefined || fromEnv === '') return {};
  return { logLevel: usage(() => parseLogLevel(fromEnv, 'OC_LOG_LEVEL')) };
}

/** OC_RECORD: 1/true/yes turns recording on by default; 0/false/no or unset leaves it off. */
function recordFromEnv(text: string | undefined): boolean {
  const value = text?.trim().toLowerCase() ?? '';
  if (value === '' || value === '0' || value === 'false' || value === 'no') return false;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  throw new UsageError(`OC_RECORD is 1 (record every desktop by default) or 0, got "${text}".`);
}

/** The gateway's TLS files from its flags, else the environment; both or neither of cert and key. */
function gatewayTlsFiles(
  values: { 'tls-cert'?: string; 'tls-key'?: string; 'tls-client-ca'?: string },
  env: NodeJS.ProcessEnv,
): GatewayCommandOptions['tls'] {
  const pick = (flag: string | undefined, name: string) => {
    const value = (flag ?? env[name] ?? '').trim();
    return value === '' ? undefined : value;
  };
  const certFile = pick(values['tls-cert'], 'OC_GATEWAY_TLS_CERT');
  const keyFile = pick(values['tls-key'], 'OC_GATEWAY_TLS_KEY');
  const clientCaFile = pick(values['tls-client-ca'], 'OC_GATEWAY_TLS_CLIENT_CA');
  if (certFile === undefined && keyFile === undefined) {
    if (clientCaFile !== undefined)
      throw new UsageError('--tls-client-ca needs TLS: add --tls-cert FILE and --tls-key FILE.');
    return undefined;
  }
  if (certFile === undefined || keyFile === undefined)
    throw new UsageError(
      '--tls-cert and --tls-key (OC_GATEWAY_TLS_CERT, OC_GATEWAY_TLS_KEY) go together: give both PEM files.',
    );
  return { certFile, keyFile, ...(clientCaFile === undefined ? {} : { clientCaFile }) };
}
