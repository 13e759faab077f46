// The RFB 3.8 opening: ProtocolVersion, security negotiation (None or VNC authentication),
// SecurityResult, ClientInit and ServerInit. Everything the server says here is validated
// before use; failures become RfbErrors whose messages say what the operator should check.
import type { ByteReader } from './byteReader.js';
import { RfbError, protocolError } from './errors.js';
import { vncAuthResponse } from './vncAuth.js';

const SECURITY_NONE = 1;
const SECURITY_VNC_AUTH = 2;
/** Longest reason string / desktop name we accept from a server. */
const MAX_TEXT = 64 * 1024;

export interface ServerInit {
  width: number;
  height: number;
  name: string;
}

export interface HandshakeOptions {
  password: string | undefined;
  shared: boolean;
  /** "host:port", for messages. */
  where: string;
  /** Largest framebuffer we are willing to allocate. */
  maxPixels: number;
  maxSide: number;
}

async function readText(reader: ByteReader, what: string): Promise<string> {
  const length = await reader.u32();
  if (length > MAX_TEXT) throw protocolError(`${what} of ${length} bytes is too long`);
  return (await reader.read(length)).toString('latin1');
}

export async function handshake(
  reader: ByteReader,
  send: (data: Buffer) => void,
  options: HandshakeOptions,
): Promise<ServerInit> {
  const { where } = options;
  const version = (await reader.read(12)).toString('latin1');
  const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(version);
  if (!match) {
    throw new RfbError(
      'protocol',
      `${where} is not a VNC server (it did not greet with "RFB xxx.yyy"). Check the host and port.`,
    );
  }
  const major = Number(match[1]);
  const minor = Number(match[2]);
  if (major < 3 || (major === 3 && minor < 8)) {
    throw new RfbError(
      'protocol',
      `VNC server at ${where} speaks RFB ${major}.${minor}; this gateway needs RFB 3.8 or later. Upgrade the VNC server.`,
    );
  }
  send(Buffer.from('RFB 003.008\n', 'latin1'));

  const count = await reader.u8();
  if (count === 0) {
    const reason = await readText(reader, 'connection failure reason');
    throw new RfbError(
      'unsupported-security',
      `VNC server at ${where} refused the connection: ${reason}`,
    );
  }
  const offered = [...(await reader.read(count))];
  let chosen: number;
  if (
    offered.includes(SECURITY_VNC_AUTH) &&
    (options.password !== undefined || !offered.includes(SECURITY_NONE))
  ) {
    if (options.password === undefined) {
      throw new RfbError(
        'auth-failed',
        `VNC server at ${where} requires a password (VNC authentication). Provide the VNC password.`,
      );
    }
    chosen = SECURITY_VNC_AUTH;
  } else if (offered.includes(SECURITY_NONE)) {
    chosen = SECURITY_NONE;
  } else {
    throw new RfbError(
      'unsupported-security',
      `VNC server at ${where} offers security types [${offered.join(', ')}]; this gateway supports only None (1) and VNC authentication (2). Configure the server to allow one of them (TigerVNC: -SecurityTypes VncAuth).`,
    );
  }
  send(Buffer.from([chosen]));

  if (chosen === SECURITY_VNC_AUTH) {
    const challenge = await reader.read(16);
    send(vncAuthResponse(Buffer.from(challenge), options.password ?? ''));
  }
  const result = await reader.u32();
  if (result !== 0) {
    // RFB 3.8 sends a reason string after a failed SecurityResult.
    const reason = await readText(reader, 'authentication failure reason').catch(
      () => 'no reason given',
    );
    throw new RfbError(
      'auth-failed',
      chosen === SECURITY_VNC_AUTH
        ? `VNC authentication failed at ${where} (${reason}). Check the VNC password.`
        : `VNC server at ${where} rejected the connection (${reason}).`,
    );
  }

  send(Buffer.from([options.shared ? 1 : 0]));
  const init = await reader.read(20); // width, height, server pixel format (we replace it)
  const width = init.readUInt16BE(0);
  const height = init.readUInt16BE(2);
  checkSize(width, height, options);
  const name = await readText(reader, 'desktop name');
  return { width, height, name };
}

export function checkSize(
  width: number,
  height: number,
  limits: { maxPixels: number; maxSide: number },
): void {
  if (
    width === 0 ||
    height === 0 ||
    width > limits.maxSide ||
    height > limits.maxSide ||
    width * height > limits.maxPixels
  ) {
    throw protocolError(
      `desktop size ${width}x${height} is outside what this gateway accepts (1..${limits.maxSide} per side, ${limits.maxPixels} pixels)`,
    );
  }
}
