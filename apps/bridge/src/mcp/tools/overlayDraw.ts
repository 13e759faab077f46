// draw_overlay: settled by the bridge when it can give the answer the control window would
// (relay/settledOverlays.ts: a control window here, the desktop's size, the layout, room), else
// relayed like every viewer tool. Either way it ran the one pipeline before getting here
// (toolCall.ts: rate limits, audit, the token's desktop and person in charge, the policy).
import { relayWithPolicy } from '../relayCall.js';
import { implementTool } from '../toolkit.js';

export const drawOverlay = implementTool('draw_overlay', async (args, ctx) => {
  // The policy allows overlays in every mode; a confirm (should one ever be asked) goes to the
  // person through the relay, and a cancelled call is refused there as before.
  const drawn =
    ctx.decision === 'allow' && !ctx.signal.aborted ? ctx.plane.hub.drawHere(args) : undefined;
  if (drawn !== undefined) return { structured: drawn };
  const { result } = await relayWithPolicy(ctx, 'draw_overlay', args);
  return { structured: result };
});
