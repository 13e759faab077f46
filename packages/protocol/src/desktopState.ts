// What every window of a desktop is told about that desktop and its people: its name, who is in
// charge of its AI (exactly one person: every AI input and approval on it goes through their
// policy), who is watching, and what this window's person may do about the charge. The bridge
// sends desktop_state after hello and on every change; a window asks to take or hand over the
// charge with `charge`, which the bridge checks against the person's access (never the page's
// word).
import { z } from 'zod';
import { Id } from './common.js';

/** What a person may do on a desktop (the API's DesktopAccess; repeated here as the wire enum). */
export const DESKTOP_ACCESS = ['owner', 'admin', 'control', 'view'] as const;
export const DesktopAccessLevel = z.enum(DESKTOP_ACCESS);
export type DesktopAccessLevel = z.infer<typeof DesktopAccessLevel>;

const PersonName = z.string().min(1).max(200);
export const PersonRef = z.strictObject({ id: Id, name: PersonName });
export type PersonRef = z.infer<typeof PersonRef>;

/** Most watchers listed; more are counted in `more_watchers`. */
export const MAX_LISTED_WATCHERS = 32;

/**
 * Whether the desktop is being recorded (P12): every window shows an indicator while `on`.
 * `since` is when the recording started (epoch ms), `stopped_reason` says why it is not writing
 * now (the disk is full…) while it is on, and `may_change` tells this window's person they may
 * switch it (they are in charge and the desktop's setting leaves it to them).
 */
export const DesktopRecordingState = z.strictObject({
  on: z.boolean(),
  since: z.number().nullable(),
  stopped_reason: z.string().max(500).nullable(),
  may_change: z.boolean(),
});
export type DesktopRecordingState = z.infer<typeof DesktopRecordingState>;

export const DesktopStateMessage = z.strictObject({
  type: z.literal('desktop_state'),
  desktop: z.strictObject({ id: Id, name: z.string().min(1).max(200) }),
  in_charge: PersonRef.describe(
    'The one person whose policy every AI input on this desktop follows.',
  ),
  /** People with a window open on this desktop, the person in charge included. */
  watchers: z.array(PersonRef.extend({ access: DesktopAccessLevel })).max(MAX_LISTED_WATCHERS),
  more_watchers: z.int().min(0),
  you: z.strictObject({
    access: DesktopAccessLevel,
    in_charge: z.boolean(),
    /** Admins and the owner may take the charge; others only receive it. */
    may_take_charge: z.boolean(),
    /** People this window's person may hand the charge to (they have control and a window open). */
    may_hand_over_to: z.array(PersonRef).max(MAX_LISTED_WATCHERS),
  }),
  /** The bridge always sends it; optional so a viewer still reads an older bridge's message. */
  recording: DesktopRecordingState.optional(),
});
export type DesktopStateMessage = z.infer<typeof DesktopStateMessage>;

/**
 * Viewer → bridge: take the charge (admin or owner), or hand it over (`to`: someone with control
 * on this desktop). The bridge answers with an error for a hand-over without `to`.
 */
export const ChargeMessage = z.strictObject({
  type: z.literal('charge'),
  action: z.enum(['take', 'hand_over']),
  to: Id.optional(),
});
export type ChargeMessage = z.infer<typeof ChargeMessage>;
