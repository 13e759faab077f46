// The square of desktop pixels an approval carries to the windows that do not show its desktop
// (ApprovalPreview, approvals_waiting): read by the control window from the Guacamole display's
// default layer — the desktop's own picture; the pointer and the overlay layer are elsewhere, so
// nothing an AI draws can change what the person sees there. Outside the desktop stays black.
import { APPROVAL_PREVIEW_SPAN, type ApprovalPreview } from '@overlay-companion/protocol';
import { getActiveClient } from '../display/activeClient.js';

let square: HTMLCanvasElement | undefined;

/** The square around `point` as a PNG, or undefined before the desktop's first frame. */
export function readPreviewSquare(point: { x: number; y: number }): ApprovalPreview | undefined {
  const source = getActiveClient()?.getDisplay().getDefaultLayer().getCanvas();
  if (source === undefined || source.width === 0 || source.height === 0) return undefined;
  square ??= document.createElement('canvas');
  square.width = APPROVAL_PREVIEW_SPAN;
  square.height = APPROVAL_PREVIEW_SPAN;
  const context = square.getContext('2d');
  if (context === null) return undefined;
  const half = Math.floor(APPROVAL_PREVIEW_SPAN / 2);
  context.fillStyle = '#000';
  context.fillRect(0, 0, APPROVAL_PREVIEW_SPAN, APPROVAL_PREVIEW_SPAN);
  context.drawImage(
    source,
    point.x - half,
    point.y - half,
    APPROVAL_PREVIEW_SPAN,
    APPROVAL_PREVIEW_SPAN,
    0,
    0,
    APPROVAL_PREVIEW_SPAN,
    APPROVAL_PREVIEW_SPAN,
  );
  const png = square.toDataURL('image/png').replace(/^data:image\/png;base64,/, '');
  return { x: Math.max(0, Math.round(point.x)), y: Math.max(0, Math.round(point.y)), png };
}
