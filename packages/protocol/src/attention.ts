// Attention on the desktop tunnel between a viewer and the bridge: a window that shows the
// desktop only at a glance (a fleet tile) says so, and the desktop's server — our gateway —
// sends it fewer frames (the bridge passes it on; Apache guacd cannot, so there it changes
// nothing); a `thumbnail` — a fleet tile — also gets them scaled down to a tile's size
// (packages/guac's attention.ts). A window that runs the AI's tools never glances: its frames
// are what the AI sees.
//
//   viewer → bridge:  oc-attention,<level>      full | glance | thumbnail   (tunnels start full)
import { z } from 'zod';

export const ATTENTION_TUNNEL_OPCODE = 'oc-attention';

export const TunnelAttention = z.enum(['full', 'glance', 'thumbnail']);
export type TunnelAttention = z.infer<typeof TunnelAttention>;
