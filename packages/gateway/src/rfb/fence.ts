// The RFB Fence extension of one connection (pseudo-encoding -312; message 248 in both
// directions), used for one thing: learning that input we sent has been processed by the VNC
// server. A fence request with BlockBefore is answered only once every message before it has
// taken effect, and a server handles a client's messages in order — so its answer proves the
// pointer and key events sent before it reached the desktop (TigerVNC injects them into X as it
// reads them). A server that supports fences says so with a fence request of its own when it
// sees the pseudo-encoding; until then `confirm` answers false (the caller falls back).
//
// The server also sends fence requests for its own reasons (TigerVNC measures round trips with
// them for its congestion control): they are answered at once, as read — this client handles
// the server's messages strictly in order, so BlockBefore and BlockAfter hold by construction;
// SyncNext is not offered.
import type { ByteReader } from './byteReader.js';
import { protocolError } from './errors.js';

export const FENCE_MESSAGE = 248;

export const FenceFlag = {
  BlockBefore: 1,
  BlockAfter: 2,
  SyncNext: 4,
  Request: 0x8000_0000,
} as const;

/** Flags we honour in answers to the server's requests. */
const SUPPORTED = FenceFlag.BlockBefore | FenceFlag.BlockAfter;
/** The protocol's limit on a fence's payload. */
const MAX_PAYLOAD = 64;

export function fenceMessage(flags: number, payload: Buffer): Buffer {
  const msg = Buffer.alloc(9 + payload.length);
  msg[0] = FENCE_MESSAGE;
  msg.writeUInt32BE(flags >>> 0, 4);
  msg[8] = payload.length;
  payload.copy(msg, 9);
  return msg;
}

export class RfbFences {
  /** True once the server has shown it speaks fences (its first request). */
  supported = false;
  private next = 1;
  private readonly pending = new Map<number, (confirmed: boolean) => void>();

  constructor(
    private readonly reader: ByteReader,
    private readonly send: (data: Buffer) => void,
  ) {}

  /**
   * Resolves true once the server has processed every message sent before this call; false at
   * once when the server does not support fences, or when the connection ends first.
   */
  confirm(): Promise<boolean> {
    if (!this.supported) return Promise.resolve(false);
    const id = this.next;
    this.next = this.next >= 0xffff_fffe ? 1 : this.next + 1;
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(id);
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.send(fenceMessage(FenceFlag.Request | FenceFlag.BlockBefore, payload));
    });
  }

  /** Reads the rest of a server Fence message (its type byte already read). */
  async readServerFence(): Promise<void> {
    const head = await this.reader.read(8); // 3 padding, flags, length
    const flags = head.readUInt32BE(3);
    const length = head[7] ?? 0;
    if (length > MAX_PAYLOAD) {
      throw protocolError(`fence payload of ${length} bytes (at most ${MAX_PAYLOAD})`);
    }
    const payload = await this.reader.read(length);
    if ((flags & FenceFlag.Request) !== 0) {
      this.supported = true;
      this.send(fenceMessage(flags & SUPPORTED, payload));
      return;
    }
    // An answer to one of ours: anything else (a stray or forged answer) is ignored.
    if (length !== 4) return;
    const id = payload.readUInt32BE(0);
    const resolve = this.pending.get(id);
    if (resolve === undefined) return;
    // Answers come in order: every earlier request is confirmed too.
    for (const [pendingId, earlier] of this.pending) {
      if (pendingId === id) break;
      this.pending.delete(pendingId);
      earlier(true);
    }
    this.pending.delete(id);
    resolve(true);
  }

  /** The connection ended: nothing pending will be answered. */
  close(): void {
    for (const resolve of this.pending.values()) resolve(false);
    this.pending.clear();
  }
}
