// What an approval shown away from its desktop carries so the person sees what they approve: the
// AI's intent and a small square of the desktop's own pixels around the point the action targets
// (the crosshair's pixel at its centre). The desktop's control window reads it from its display
// — the desktop's picture, never the overlay layer an AI draws on — when it lists its approvals
// (approvals_waiting); the fleet page and the person's other viewers show it magnified. One
// definition of the square's size, used by the approval panel's live magnifier too.
import { z } from 'zod';

/** Desktop pixels across (and down) the square; odd, so one pixel is its centre. */
export const APPROVAL_PREVIEW_SPAN = 33;

/** Longest base64 PNG of the square (a 33×33 RGBA PNG is at most ~4.4 KB; base64 adds a third). */
export const MAX_APPROVAL_PREVIEW_BASE64 = 8_192;

export const ApprovalPreview = z.strictObject({
  x: z
    .int()
    .min(0)
    .max(65_535)
    .describe('The targeted desktop pixel (the square is centred on it).'),
  y: z.int().min(0).max(65_535),
  png: z
    .base64()
    .max(MAX_APPROVAL_PREVIEW_BASE64)
    .describe(`A PNG of the APPROVAL_PREVIEW_SPAN-square of desktop pixels around (x, y), base64.`),
});
export type ApprovalPreview = z.infer<typeof ApprovalPreview>;
