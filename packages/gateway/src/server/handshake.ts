// The server half of the guacd handshake, step by step as guacd does it: `select` (a protocol
// or `$<id>` of a running connection), `args` (version first, then the argument names),
// the client's `size`/`audio`/`video`/`image`/`timezone`/`name` in any order, then `connect`
// whose values are mapped to the names by position. Anything else fails with a status and a
// message that says what the client should have sent; the caller sends it as `error`.
// With a join secret configured, `select $<id>` is not checked here: `args` also names
// `join-secret`, and the caller checks id and secret together after `connect` (joinAccess.ts).
import {
  GUAC_PROTOCOL_VERSION,
  GuacProtocolError,
  GuacStatus,
  mapConnectArgs,
  type ClientHandshakeInfo,
  type GuacInstruction,
} from '@overlay-companion/guac';
import type { GuacSocket } from './guacSocket.js';
import { JOIN_SECRET_ARG, unknownConnection } from './joinAccess.js';
import { VNC_ARG_NAMES } from './vncArgs.js';

export const SUPPORTED_PROTOCOLS = ['vnc'] as const;

/** What the client told us: the same fields the client side of the handshake sends. */
export interface ClientInfo extends ClientHandshakeInfo {
  /** The protocol version the client announced in `connect` ('' when it sent none). */
  version: string;
}

export type Selection = { kind: 'new'; protocol: 'vnc' } | { kind: 'join'; connectionId: string };

export interface HandshakeResult {
  selection: Selection;
  args: Map<string, string>;
  info: ClientInfo;
}

/** Instructions other than `connect` accepted before giving up on a chatty client. */
const MAX_HANDSHAKE_INSTRUCTIONS = 32;

export async function serverHandshake(
  socket: GuacSocket,
  options: {
    timeoutMs: number;
    connectionExists: (id: string) => boolean;
    /** Joins must prove a secret: ask for it, and leave the id check to the caller. */
    joinSecretRequired?: boolean;
  },
): Promise<HandshakeResult> {
  const select = await socket.next(options.timeoutMs, '"select"');
  const secretRequired = options.joinSecretRequired ?? false;
  // Checking the id now would answer an unknown id earlier than a wrong secret.
  const exists = secretRequired ? () => true : options.connectionExists;
  const selection = parseSelect(select, exists);

  const argNames: string[] = [GUAC_PROTOCOL_VERSION, ...VNC_ARG_NAMES];
  if (selection.kind === 'join' && secretRequired) argNames.push(JOIN_SECRET_ARG);
  socket.send([['args', ...argNames]]);

  const info: ClientInfo = {
    width: 1024,
    height: 768,
    dpi: 96,
    audio: [],
    video: [],
    image: [],
    timezone: undefined,
    name: undefined,
    version: '',
  };
  for (let count = 0; ; count++) {
    if (count > MAX_HANDSHAKE_INSTRUCTIONS) {
      throw new GuacProtocolError(
        `No "connect" after ${String(MAX_HANDSHAKE_INSTRUCTIONS)} handshake instructions; send size/audio/video/image/timezone/name, then connect.`,
        GuacStatus.CLIENT_BAD_REQUEST,
      );
    }
    const instruction = await socket.next(options.timeoutMs, '"connect"');
    if (instruction.opcode === 'connect') {
      const args = mapConnectArgs(argNames, instruction.args);
      info.version = instruction.args[0] ?? '';
      return { selection, args, info };
    }
    readInfo(instruction, info);
  }
}

function parseSelect(instruction: GuacInstruction, exists: (id: string) => boolean): Selection {
  if (instruction.opcode !== 'select' || instruction.args.length !== 1) {
    throw new GuacProtocolError(
      `The handshake must start with "select" and one argument (a protocol such as "vnc", or "$<id>" to join); got "${instruction.opcode.slice(0, 32)}" with ${String(instruction.args.length)} argument(s).`,
      GuacStatus.CLIENT_BAD_REQUEST,
    );
  }
  const target = instruction.args[0] ?? '';
  if (target.startsWith('$')) {
    // guacd answers an unknown connection id with RESOURCE_NOT_FOUND.
    if (!exists(target)) throw unknownConnection();
    return { kind: 'join', connectionId: target };
  }
  if (target !== 'vnc') {
    throw new GuacProtocolError(
      `Protocol "${target.slice(0, 32)}" is not supported by this gateway; it supports only ${SUPPORTED_PROTOCOLS.map((p) => `"${p}"`).join(', ')} (or "$<id>" to join a running connection). Use Apache guacd for other protocols.`,
      GuacStatus.UNSUPPORTED,
    );
  }
  return { kind: 'new', protocol: 'vnc' };
}

function readInfo(instruction: GuacInstruction, info: ClientInfo): void {
  const a = instruction.args;
  switch (instruction.opcode) {
    case 'size': {
      const [w, h, dpi] = a.map((v) => (/^\d+$/.test(v) ? Number(v) : NaN));
      if (a.length < 2 || !(w! > 0) || !(h! > 0)) {
        throw new GuacProtocolError(
          `"size" in the handshake needs a positive width and height (and optionally DPI), got ${JSON.stringify(a.slice(0, 3))}.`,
          GuacStatus.CLIENT_BAD_REQUEST,
        );
      }
      info.width = w!;
      info.height = h!;
      if (dpi !== undefined && dpi > 0) info.dpi = dpi;
      return;
    }
    case 'audio':
      info.audio = [...a];
      return;
    case 'video':
      info.video = [...a];
      return;
    case 'image':
      info.image = [...a];
      return;
    case 'timezone':
      info.timezone = a[0];
      return;
    case 'name':
      info.name = a[0];
      return;
    default:
      // guacd has no handler for other opcodes here and ignores them.
      return;
  }
}
