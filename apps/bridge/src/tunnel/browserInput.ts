// What of a browser's instructions goes on to the desktop server, encoded: everything except
// `size` — a window's size is not the desktop's, the bridge decides that
// (personConnections.ts) — and, on VNC, a Shift tap before the tunnel's first key when Xvnc
// would otherwise lose it (keymapPrimer.ts). Tunnel-internal instructions (empty opcode) are
// the tunnel's own and never come here.
import { encodeInstruction, type GuacInstruction } from '@overlay-companion/guac';
import type { ConnectionConfig } from '../config.js';
import { KeymapPrimer } from './keymapPrimer.js';

export class BrowserInput {
  private readonly primer: KeymapPrimer | undefined;

  constructor(protocol: ConnectionConfig['protocol']) {
    this.primer = protocol === 'vnc' ? new KeymapPrimer() : undefined;
  }

  /** The encoded instructions to send upstream for this one ('' for none). */
  toUpstream(instruction: GuacInstruction): string {
    const { opcode, args } = instruction;
    if (opcode === 'size') return '';
    const before = opcode === 'key' && this.primer ? this.primer.before(args) : '';
    return before + encodeInstruction(opcode, ...args);
  }
}
