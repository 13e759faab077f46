// What the AI is doing on the desktop, as every window of the person draws it: the control window
// runs each input action and announces it (ai_action); the bridge relays it to the person's other
// windows, so the window that shows the part of the desktop where the AI clicks, drags, scrolls or
// types draws its pointer there too ("they see everything the AI does", on every monitor).
// Desktop pixels, after any monitor_index was resolved. Typed text is cut to what the pointer's
// bubble shows; the clipboard and anything else without a place on the desktop is not sent.
// Also take_over: the person taking the desktop from the AI in any window pauses it in all.
import { z } from 'zod';
import { Coordinate, MouseButton } from './common.js';

/** Most characters of typed text (or a key combo) an ai_action carries: the bubble shows 80. */
export const MAX_AI_ACTION_TEXT = 200;

const DesktopPoint = z.strictObject({ x: Coordinate, y: Coordinate });

export const AiAction = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('click'),
    x: Coordinate,
    y: Coordinate,
    button: MouseButton,
    clicks: z.int().min(1).max(3),
  }),
  z.strictObject({
    kind: z.literal('drag'),
    from: DesktopPoint,
    to: DesktopPoint,
    button: MouseButton,
  }),
  z.strictObject({
    kind: z.literal('scroll'),
    x: Coordinate,
    y: Coordinate,
    direction: z.enum(['up', 'down', 'left', 'right']),
    amount: z.int().min(1).max(50),
  }),
  z.strictObject({ kind: z.literal('move'), x: Coordinate, y: Coordinate }),
  z.strictObject({ kind: z.literal('type'), text: z.string().max(MAX_AI_ACTION_TEXT) }),
  z.strictObject({
    kind: z.literal('keys'),
    keys: z.string().min(1).max(MAX_AI_ACTION_TEXT),
    repeat: z.int().min(1).max(50),
  }),
]);
export type AiAction = z.infer<typeof AiAction>;

/**
 * Sent by the control window as it runs an AI input action; relayed by the bridge to the
 * person's other windows (and refused from a mirror). Drawing only: it changes nothing.
 */
export const AiActionMessage = z.strictObject({ type: z.literal('ai_action'), action: AiAction });

/**
 * The person took the desktop over (on) or handed it back (off), in any of their windows. Both
 * directions: a window says it, the bridge keeps it and tells every window (and each new one
 * after hello), so the control window — which runs the AI's input — pauses whichever window the
 * person pressed it in. A headless viewer cannot hand back.
 */
export const TakeOverMessage = z.strictObject({ type: z.literal('take_over'), on: z.boolean() });
