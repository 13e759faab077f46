// The guacd handshake, client side, and the positional argument mapping guacd applies to
// `connect`. Used by the bridge to open a connection on guacd or on our gateway, and by the
// gateway to read `connect` exactly as guacd would.
//
// guacd (src/libguac/user-handshake.c) sends `args` with its protocol version first, then the
// plugin's argument names; it requires `connect` to carry exactly one value per `args` element,
// the first being the client's version, and maps the rest to the names by position.

import type { GuacConnection } from './connection.js';
import { errorFromInstruction } from './connection.js';
import type { GuacInstruction } from './parser.js';
import { GUAC_PROTOCOL_VERSION, GuacProtocolError, GuacStatus } from './status.js';

export interface ClientHandshakeInfo {
  width: number;
  height: number;
  dpi: number;
  audio: string[];
  video: string[];
  image: string[];
  timezone?: string;
  name?: string;
}

export interface ClientHandshakeOptions {
  /** A protocol name (`vnc`, `rdp`) or `$<connection-id>` to join a running connection. */
  select: string;
  /** Values by argument name; names the server asks for that are missing here are sent empty. */
  params: Record<string, string>;
  info: ClientHandshakeInfo;
  /** For the whole handshake; default 15 s. */
  timeoutMs?: number;
}

export interface ClientHandshakeResult {
  /** From `ready`, e.g. `$4c1e…`; `select` it to join this connection. */
  connectionId: string;
  /** The `args` the server sent, version first when it has one. */
  argNames: string[];
  /** The protocol version both sides agreed on, or undefined for a server without versions. */
  protocolVersion: string | undefined;
}

const DEFAULT_HANDSHAKE_TIMEOUT_MS = 15_000;
const VERSION_PATTERN = /^VERSION_(\d+)_(\d+)_(\d+)$/;

function parseVersion(text: string): [number, number, number] | undefined {
  const match = VERSION_PATTERN.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Maps `connect` values to the names `args` announced, by position, as guacd does: when the first
 * name is a `VERSION_x_y_z`, the first value is the client's version and is not a parameter.
 * Throws GuacProtocolError (CLIENT_BAD_REQUEST) when the counts differ — guacd refuses such a
 * `connect` too.
 */
export function mapConnectArgs(
  argNames: readonly string[],
  values: readonly string[],
): Map<string, string> {
  if (values.length !== argNames.length) {
    throw new GuacProtocolError(
      `The 'connect' instruction carries ${values.length} values but 'args' named ${argNames.length} (the protocol version included); send exactly one value per name, empty for defaults.`,
      GuacStatus.CLIENT_BAD_REQUEST,
    );
  }
  const first = argNames[0];
  const start = first !== undefined && first.startsWith('VERSION_') ? 1 : 0;
  const mapped = new Map<string, string>();
  for (let i = start; i < argNames.length; i++)
    mapped.set(argNames[i] as string, values[i] as string);
  return mapped;
}

/** The `connect` values for the given `args`: the agreed version first, then one per name. */
export function buildConnectValues(
  argNames: readonly string[],
  params: Readonly<Record<string, string>>,
): string[] {
  return argNames.map((name, index) => {
    if (index === 0 && name.startsWith('VERSION_')) return agreedVersion(name);
    return Object.hasOwn(params, name) ? (params[name] as string) : '';
  });
}

// The lower of the server's version and ours, as guacamole-client does.
function agreedVersion(serverVersion: string): string {
  const theirs = parseVersion(serverVersion);
  const ours = parseVersion(GUAC_PROTOCOL_VERSION) as [number, number, number];
  if (!theirs || compareVersions(theirs, ours) >= 0) return GUAC_PROTOCOL_VERSION;
  return serverVersion;
}

/**
 * Runs the client side of the guacd handshake: `select`, wait for `args`, send `size`, `audio`,
 * `video`, `image` (and `timezone` from 1.1.0, `name` from 1.5.0), `connect`, wait for `ready`.
 * Rejects with GuacProtocolError: the server's own message and status for an `error`
 * instruction, UPSTREAM_TIMEOUT when it is too slow, UPSTREAM_ERROR when it breaks the protocol
 * or closes. On failure the connection is closed.
 */
export async function clientHandshake(
  conn: GuacConnection,
  options: ClientHandshakeOptions,
): Promise<ClientHandshakeResult> {
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS);
  try {
    conn.send('select', options.select);
    const args = await expectFromServer(conn, 'args', deadline);
    const argNames = args.args;
    const first = argNames[0];
    const serverVersion = first !== undefined ? parseVersion(first) : undefined;
    const agreed = serverVersion ? agreedVersion(first as string) : undefined;
    const agreedParts = agreed ? parseVersion(agreed) : undefined;

    const { info } = options;
    conn.send('size', info.width, info.height, info.dpi);
    conn.send('audio', ...info.audio);
    conn.send('video', ...info.video);
    conn.send('image', ...info.image);
    if (
      info.timezone !== undefined &&
      agreedParts &&
      compareVersions(agreedParts, [1, 1, 0]) >= 0
    ) {
      conn.send('timezone', info.timezone);
    }
    if (info.name !== undefined && agreedParts && compareVersions(agreedParts, [1, 5, 0]) >= 0) {
      conn.send('name', info.name);
    }
    conn.send('connect', ...buildConnectValues(argNames, options.params));

    const ready = await expectFromServer(conn, 'ready', deadline);
    const connectionId = ready.args[0];
    if (connectionId === undefined || connectionId === '') {
      throw new GuacProtocolError(
        "The server's 'ready' instruction has no connection id; is it a guacd-compatible server?",
        GuacStatus.UPSTREAM_ERROR,
      );
    }
    return { connectionId, argNames, protocolVersion: agreed };
  } catch (error) {
    conn.close();
    throw error;
  }
}

async function expectFromServer(
  conn: GuacConnection,
  opcode: string,
  deadline: number,
): Promise<GuacInstruction> {
  let instruction: GuacInstruction;
  try {
    instruction = await conn.nextInstruction(undefined, Math.max(0, deadline - Date.now()));
  } catch (error) {
    if (error instanceof GuacProtocolError && error.status === GuacStatus.CLIENT_TIMEOUT) {
      throw new GuacProtocolError(
        `The Guacamole server sent no '${opcode}' in time; check that guacd (or the gateway) is running and reachable.`,
        GuacStatus.UPSTREAM_TIMEOUT,
        { cause: error },
      );
    }
    if (error instanceof GuacProtocolError && error.status === GuacStatus.RESOURCE_CLOSED) {
      throw new GuacProtocolError(
        `The Guacamole server closed the connection before sending '${opcode}'.`,
        GuacStatus.UPSTREAM_ERROR,
        { cause: error },
      );
    }
    // Malformed data from the server or a socket error: the upstream's fault, not the client's.
    const message = error instanceof Error ? error.message : String(error);
    throw new GuacProtocolError(
      `The Guacamole server connection failed while waiting for '${opcode}': ${message}`,
      GuacStatus.UPSTREAM_ERROR,
      {
        cause: error,
      },
    );
  }
  if (instruction.opcode === opcode) return instruction;
  if (instruction.opcode === 'error') throw errorFromInstruction(instruction);
  throw new GuacProtocolError(
    `Expected '${opcode}' from the Guacamole server but received '${instruction.opcode}'; is it a guacd-compatible server?`,
    GuacStatus.UPSTREAM_ERROR,
  );
}
