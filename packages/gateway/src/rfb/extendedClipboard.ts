// The Extended Clipboard pseudo-encoding (0xC0A1E5CE): cut-text messages with a negative length
// carry a flags word (formats + one action) and, for `provide`, a zlib stream of per-format
// (size, data) pairs. We only exchange the UTF-8 `text` format; other formats are skipped.
import { constants, deflateSync, inflateSync } from 'node:zlib';
import { protocolError } from './errors.js';

export const ClipFlag = {
  text: 1 << 0,
  caps: 1 << 24,
  request: 1 << 25,
  peek: 1 << 26,
  notify: 1 << 27,
  provide: 1 << 28,
} as const;

const FORMAT_MASK = 0xffff;
const ACTION_MASK = 0xff000000;

/** Largest clipboard text accepted from or sent to the server. */
export const MAX_CLIPBOARD_BYTES = 10 * 1024 * 1024;

export type ExtendedClipboardMessage =
  | { action: 'caps'; formats: number; actions: number; sizes: number[] }
  | { action: 'request'; formats: number }
  | { action: 'peek' }
  | { action: 'notify'; formats: number }
  | { action: 'provide'; text: string | undefined };

function popcount(value: number): number {
  let count = 0;
  for (let v = value; v !== 0; v &= v - 1) count++;
  return count;
}

/** Parses the payload that follows a negative cut-text length. Throws RfbError if malformed. */
export function parseExtendedClipboard(payload: Buffer): ExtendedClipboardMessage {
  if (payload.length < 4) throw protocolError('Extended Clipboard message shorter than its flags');
  const flags = payload.readUInt32BE(0);
  const formats = flags & FORMAT_MASK;
  if (flags & ClipFlag.caps) {
    const count = popcount(formats);
    if (payload.length < 4 + 4 * count)
      throw protocolError('Extended Clipboard caps message is missing sizes');
    const sizes = Array.from({ length: count }, (_, i) => payload.readUInt32BE(4 + 4 * i));
    return { action: 'caps', formats, actions: (flags & ACTION_MASK) >>> 0, sizes };
  }
  if (flags & ClipFlag.request) return { action: 'request', formats };
  if (flags & ClipFlag.peek) return { action: 'peek' };
  if (flags & ClipFlag.notify) return { action: 'notify', formats };
  if (flags & ClipFlag.provide)
    return { action: 'provide', text: parseProvide(formats, payload.subarray(4)) };
  throw protocolError(
    `Extended Clipboard message with no known action (flags 0x${flags.toString(16)})`,
  );
}

function parseProvide(formats: number, compressed: Buffer): string | undefined {
  let data: Buffer;
  try {
    // Each provide message is its own zlib stream, unlike ZRLE's connection-long one. TigerVNC
    // flushes it without a final block, so accept a stream that simply stops (Z_SYNC_FLUSH).
    data = inflateSync(compressed, {
      maxOutputLength: MAX_CLIPBOARD_BYTES * 2,
      finishFlush: constants.Z_SYNC_FLUSH,
    });
  } catch (error) {
    throw protocolError(`Extended Clipboard data does not inflate (${(error as Error).message})`);
  }
  let p = 0;
  let text: string | undefined;
  for (let bit = 0; bit < 16; bit++) {
    if (!(formats & (1 << bit))) continue;
    if (p + 4 > data.length) throw protocolError('Extended Clipboard provide message cut short');
    const size = data.readUInt32BE(p);
    p += 4;
    if (p + size > data.length) throw protocolError('Extended Clipboard provide message cut short');
    if (bit === 0) text = decodeText(data.subarray(p, p + size));
    p += size;
  }
  return text;
}

/** Wire text is UTF-8 with CRLF line ends and a terminating NUL. */
function decodeText(bytes: Buffer): string {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.toString('utf8', 0, end).replace(/\r\n/g, '\n');
}

function flagsOnly(flags: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(flags >>> 0, 0);
  return out;
}

/**
 * Our capabilities: text only, every action. A zero maximum size asks the server to announce
 * changes with `notify` rather than pushing data unasked (what the spec recommends).
 */
export function capsMessage(): Buffer {
  const flags =
    ClipFlag.caps |
    ClipFlag.text |
    ClipFlag.request |
    ClipFlag.peek |
    ClipFlag.notify |
    ClipFlag.provide;
  return Buffer.concat([flagsOnly(flags), Buffer.alloc(4)]);
}

export function requestMessage(formats: number): Buffer {
  return flagsOnly(ClipFlag.request | formats);
}

export function notifyMessage(formats: number): Buffer {
  return flagsOnly(ClipFlag.notify | formats);
}

export function provideTextMessage(text: string): Buffer {
  const utf8 = Buffer.from(text.replace(/\r?\n/g, '\r\n') + '\0', 'utf8');
  const inner = Buffer.alloc(4 + utf8.length);
  inner.writeUInt32BE(utf8.length, 0);
  utf8.copy(inner, 4);
  return Buffer.concat([flagsOnly(ClipFlag.provide | ClipFlag.text), deflateSync(inner)]);
}
