// Builders for every client-to-server RFB message this client sends. Pure functions from values
// to bytes, so they are trivially testable and the client class only decides *when* to send.

/** Client message types (RFB 3.8 §7.5 plus the SetDesktopSize extension). */
const SET_PIXEL_FORMAT = 0;
const SET_ENCODINGS = 2;
const FRAMEBUFFER_UPDATE_REQUEST = 3;
const KEY_EVENT = 4;
const POINTER_EVENT = 5;
const CLIENT_CUT_TEXT = 6;
const SET_DESKTOP_SIZE = 251;

/**
 * 32 bpp, depth 24, little-endian true colour with red at shift 0, green 8, blue 16: each pixel
 * arrives as the bytes R, G, B, pad — already RGBA order, so Raw needs no shuffling and ZRLE's
 * 3-byte CPIXELs are R, G, B.
 */
export function setPixelFormat(): Buffer {
  const msg = Buffer.alloc(20);
  msg[0] = SET_PIXEL_FORMAT;
  msg[4] = 32; // bits-per-pixel
  msg[5] = 24; // depth
  msg[6] = 0; // big-endian-flag: little-endian
  msg[7] = 1; // true-colour-flag
  msg.writeUInt16BE(255, 8); // red-max
  msg.writeUInt16BE(255, 10); // green-max
  msg.writeUInt16BE(255, 12); // blue-max
  msg[14] = 0; // red-shift
  msg[15] = 8; // green-shift
  msg[16] = 16; // blue-shift
  return msg;
}

export function setEncodings(encodings: readonly number[]): Buffer {
  const msg = Buffer.alloc(4 + 4 * encodings.length);
  msg[0] = SET_ENCODINGS;
  msg.writeUInt16BE(encodings.length, 2);
  encodings.forEach((encoding, i) => msg.writeInt32BE(encoding, 4 + 4 * i));
  return msg;
}

export function framebufferUpdateRequest(
  incremental: boolean,
  x: number,
  y: number,
  width: number,
  height: number,
): Buffer {
  const msg = Buffer.alloc(10);
  msg[0] = FRAMEBUFFER_UPDATE_REQUEST;
  msg[1] = incremental ? 1 : 0;
  msg.writeUInt16BE(x, 2);
  msg.writeUInt16BE(y, 4);
  msg.writeUInt16BE(width, 6);
  msg.writeUInt16BE(height, 8);
  return msg;
}

export function keyEvent(keysym: number, down: boolean): Buffer {
  const msg = Buffer.alloc(8);
  msg[0] = KEY_EVENT;
  msg[1] = down ? 1 : 0;
  msg.writeUInt32BE(keysym >>> 0, 4);
  return msg;
}

export function pointerEvent(x: number, y: number, buttonMask: number): Buffer {
  const msg = Buffer.alloc(6);
  msg[0] = POINTER_EVENT;
  msg[1] = buttonMask & 0xff;
  msg.writeUInt16BE(x, 2);
  msg.writeUInt16BE(y, 4);
  return msg;
}

/** Basic ClientCutText: Latin-1 text, characters outside it replaced with '?'. */
export function clientCutTextLatin1(text: string): Buffer {
  // eslint-disable-next-line no-control-regex -- the range is the point: everything above U+00FF
  const latin1 = Buffer.from(text.replace(/[^\u0000-\u00ff]/gu, '?'), 'latin1');
  return clientCutTextRaw(latin1.length, latin1);
}

/** ClientCutText with an explicit (possibly negative, for Extended Clipboard) length field. */
export function clientCutTextRaw(length: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header[0] = CLIENT_CUT_TEXT;
  header.writeInt32BE(length, 4);
  return Buffer.concat([header, payload]);
}

export interface RfbScreen {
  id: number;
  x: number;
  y: number;
  width: number;
  height: number;
  flags: number;
}

export function setDesktopSize(
  width: number,
  height: number,
  screens: readonly RfbScreen[],
): Buffer {
  const msg = Buffer.alloc(8 + 16 * screens.length);
  msg[0] = SET_DESKTOP_SIZE;
  msg.writeUInt16BE(width, 2);
  msg.writeUInt16BE(height, 4);
  msg[6] = screens.length;
  screens.forEach((screen, i) => {
    const at = 8 + 16 * i;
    msg.writeUInt32BE(screen.id >>> 0, at);
    msg.writeUInt16BE(screen.x, at + 4);
    msg.writeUInt16BE(screen.y, at + 6);
    msg.writeUInt16BE(screen.width, at + 8);
    msg.writeUInt16BE(screen.height, at + 10);
    msg.writeUInt32BE(screen.flags >>> 0, at + 12);
  });
  return msg;
}
