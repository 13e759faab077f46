// A window's attention on its tunnel (packages/protocol's attention.ts): the browser says how
// closely it looks (`oc-attention`, checked here), and a server that announced it honours
// attention (our gateway's `x-oc-attention`, packages/guac's attention.ts) is told the level the
// browser last asked for, once it differs from what it was told — never a server that did not.
import { ATTENTION_OPCODE } from '@overlay-companion/guac';
import { ATTENTION_TUNNEL_OPCODE, TunnelAttention } from '@overlay-companion/protocol';

export class TunnelAttentionPass {
  private wanted: TunnelAttention = 'full';
  private sent: TunnelAttention = 'full';
  private serverHonours = false;

  /** `send`: one instruction to the server; false when it could not go (not relaying yet). */
  constructor(private readonly send: (opcode: string, level: TunnelAttention) => boolean) {}

  /**
   * The browser's `oc-attention` arguments; returns the error text for a malformed one (the
   * tunnel ends with 768), else undefined.
   */
  fromBrowser(args: readonly string[]): string | undefined {
    const level = TunnelAttention.safeParse(args[0]);
    if (args.length !== 1 || !level.success)
      return `Malformed "${ATTENTION_TUNNEL_OPCODE}" instruction: it takes one level, one of ${TunnelAttention.options.join(', ')}.`;
    this.wanted = level.data;
    this.pass();
    return undefined;
  }

  /** The server announced it honours attention. */
  serverAnnounced(): void {
    this.serverHonours = true;
    this.pass();
  }

  /** Tells a server that honours attention what the browser last asked for, once it differs. */
  private pass(): void {
    if (!this.serverHonours || this.wanted === this.sent) return;
    if (this.send(ATTENTION_OPCODE, this.wanted)) this.sent = this.wanted;
  }
}
