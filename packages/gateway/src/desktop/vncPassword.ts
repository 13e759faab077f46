// Writes TigerVNC's password file format: the password truncated to 8 bytes and DES-encrypted
// with the fixed key every VNC implementation uses for stored passwords.
import { encryptStoredVncPassword } from '../rfb/vncAuth.js';

export function vncPasswordFile(password: string): Buffer {
  return encryptStoredVncPassword(password);
}
