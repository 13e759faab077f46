// PLACEHOLDER — the gateway's RFB work replaces this file with a real DES implementation.
export function encryptStoredVncPassword(_password: string): Buffer {
  throw new Error('VNC authentication is not implemented yet');
}
