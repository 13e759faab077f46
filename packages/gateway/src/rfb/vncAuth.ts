// VNC authentication (RFB security type 2) and TigerVNC's stored-password format. Both are DES
// with a VNC quirk: every key byte is used with its bits mirrored (the original VNC code fed
// keys to DES least-significant bit first), so we mirror the bytes before standard DES.
import { desEncryptBlock } from './des.js';

/** The fixed key VNC implementations use to obfuscate stored password files. */
const STORED_PASSWORD_KEY = Buffer.from([23, 82, 107, 6, 35, 78, 88, 7]);

function mirrorBits(byte: number): number {
  let out = 0;
  for (let i = 0; i < 8; i++) if (byte & (1 << i)) out |= 0x80 >> i;
  return out;
}

/**
 * VNC passwords are at most 8 bytes, zero-padded; longer ones are truncated. TigerVNC's
 * vncpasswd stores the UTF-8 bytes of what was typed, so we use UTF-8 too.
 */
function passwordKey(password: string): Buffer {
  const key = Buffer.alloc(8);
  Buffer.from(password, 'utf8').copy(key, 0, 0, 8);
  return key;
}

function vncDes(key: Buffer, block: Buffer): Buffer {
  return desEncryptBlock(key.map(mirrorBits), block);
}

/** Response to the server's 16-byte challenge: both halves encrypted with the password. */
export function vncAuthResponse(challenge: Buffer, password: string): Buffer {
  if (challenge.length !== 16) throw new RangeError('a VNC authentication challenge is 16 bytes');
  const key = passwordKey(password);
  return Buffer.concat([
    vncDes(key, challenge.subarray(0, 8)),
    vncDes(key, challenge.subarray(8, 16)),
  ]);
}

/** The 8 bytes `vncpasswd -f` writes for this password (what Xvnc's -PasswordFile reads). */
export function encryptStoredVncPassword(password: string): Buffer {
  return vncDes(STORED_PASSWORD_KEY, passwordKey(password));
}
