// What of a browser's instructions goes on to the desktop server, encoded: everything except
// `size` — a window's size is not the desktop's, the bridge decides that
// (desktopConnections.ts) — and, on VNC, a Shift tap before the tunnel's first key when Xvnc
// would otherwise lose it (keymapPrimer.ts). A view-only window (a `view` grant) sends the
// desktop nothing but the stream housekeeping a picture needs (sync, ack, nop, disconnect): no
// pointer, keys, touch, clipboard or file streams, whatever its page does; and no window ever
// starts a file transfer of Guacamole's own (put, get, file). Tunnel-internal
// instructions (empty opcode) are the tunnel's own and never come here.
import {
  ATTENTION_OPCODE,
  DELIVERY_OPCODE,
  PASSIVE_OPCODE,
  encodeInstruction,
  type GuacInstruction,
} from '@overlay-companion/guac';
import type { ConnectionConfig } from '../config.js';
import { KeymapPrimer } from './keymapPrimer.js';

/**
 * Instructions a browser's never go on: the bridge's own (size, our extensions), and Guacamole's
 * file transfer (`put`/`get` on a `filesystem` object, `file` uploads) — files move through the
 * bridge's checked and audited /api/desktops/:id/files only (files/rdpDrive.ts).
 */
const BRIDGE_ONLY: ReadonlySet<string> = new Set([
  'size',
  DELIVERY_OPCODE,
  ATTENTION_OPCODE,
  PASSIVE_OPCODE,
  'put',
  'get',
  'file',
]);

/** What a view-only window may still send: acknowledging the picture, keeping the link up. */
const VIEW_ONLY_OPCODES: ReadonlySet<string> = new Set(['sync', 'ack', 'nop', 'disconnect']);

export class BrowserInput {
  private readonly primer: KeymapPrimer | undefined;

  constructor(
    protocol: ConnectionConfig['protocol'],
    private readonly readOnly = false,
  ) {
    this.primer = protocol === 'vnc' && !readOnly ? new KeymapPrimer() : undefined;
  }

  /** The encoded instructions to send upstream for this one ('' for none). */
  toUpstream(instruction: GuacInstruction): string {
    const { opcode, args } = instruction;
    // `size` is the bridge's decision; our extensions are the bridge's own words to its server.
    if (BRIDGE_ONLY.has(opcode)) return '';
    if (this.readOnly && !VIEW_ONLY_OPCODES.has(opcode)) return '';
    const before = opcode === 'key' && this.primer ? this.primer.before(args) : '';
    return before + encodeInstruction(opcode, ...args);
  }
}
