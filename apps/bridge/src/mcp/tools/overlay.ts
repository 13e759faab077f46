// Overlay tools: executed by the control viewer, whose store is authoritative (it broadcasts
// the changes to mirror windows through the bridge). Never governed by the mode.
import { defineTool } from '../toolkit.js';
import { relayWithPolicy } from '../relayCall.js';

export const drawOverlay = defineTool('draw_overlay', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'draw_overlay', args);
  const b = result.bounds;
  return {
    structured: result,
    text: `Drew overlay ${result.overlay_id} at ${b.x},${b.y} size ${b.width}x${b.height}${b.width === 0 || b.height === 0 ? ' (entirely off the desktop, so invisible)' : ''}.`,
  };
});

export const removeOverlay = defineTool('remove_overlay', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'remove_overlay', args);
  return {
    structured: result,
    text: result.removed
      ? `Removed overlay ${args.overlay_id}.`
      : `No overlay ${args.overlay_id} (already removed or expired).`,
  };
});

export const clearOverlays = defineTool('clear_overlays', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'clear_overlays', args);
  return { structured: result, text: `Cleared ${result.cleared} overlay(s).` };
});

export const batchOverlay = defineTool('batch_overlay', async (args, ctx) => {
  const { result } = await relayWithPolicy(ctx, 'batch_overlay', args);
  return {
    structured: result,
    text: `Drew ${result.overlay_ids.length} overlay(s): ${result.overlay_ids.join(', ')}.`,
  };
});

export const overlayTools = [drawOverlay, removeOverlay, clearOverlays, batchOverlay];
