// Event tools (subscribe_events, unsubscribe_events, get_events) and the UiEvent record: what
// the person does in the viewer and when the screen changes, buffered by the bridge per
// subscription until the AI polls with get_events.
import { z } from 'zod';
import { Coordinate, EpochMs, Id, InputRect, MouseButton, Rect } from '../common.js';
import { MAX_KEY_COMBO_LENGTH } from '../keys.js';
import { defineTool } from './define.js';
import { IgnoredKeys } from './looseArgs.js';
import { plainText } from './textArgs.js';

export const EVENT_TYPES = [
  'mouse_move',
  'mouse_click',
  'key_press',
  'window_focus',
  'screen_change',
] as const;
export const EventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventType>;

const At = EpochMs.describe('When it happened, milliseconds since the Unix epoch (viewer clock).');

/**
 * One UI event. `data` differs by type; positions are desktop pixels. The viewer produces these
 * (message `event`), the bridge filters them per subscription and returns them from get_events.
 */
export const UiEvent = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('mouse_move'),
    at: At,
    data: z.strictObject({ x: Coordinate, y: Coordinate }),
  }),
  z.strictObject({
    type: z.literal('mouse_click'),
    at: At,
    data: z.strictObject({
      x: Coordinate,
      y: Coordinate,
      button: MouseButton,
      overlay_id: Id.optional().describe(
        'The interactive overlay (draw_overlay click_through=false) the person clicked; that click did not reach the desktop.',
      ),
    }),
  }),
  z.strictObject({
    type: z.literal('key_press'),
    at: At,
    data: z.strictObject({
      key: z.string().min(1).max(32).describe('Key name (as in press_key) or the character.'),
      keysym: z.int().min(0).max(0x1ffffff).describe('X11 keysym.'),
    }),
  }),
  z.strictObject({
    type: z.literal('window_focus'),
    at: At,
    data: z.strictObject({
      focused: z.boolean().describe("Whether the person's viewer window now has focus."),
    }),
  }),
  z.strictObject({
    type: z.literal('screen_change'),
    at: At,
    data: z.strictObject({ region: Rect.describe('Changed area in desktop pixels.') }),
  }),
]);
export type UiEvent = z.infer<typeof UiEvent>;

export const SubscriptionId = Id.describe('Subscription id returned by subscribe_events.');

/** subscribe_events' filter: a loose object (unknown keys are accepted and reported as ignored). */
export const EventFilter = z.looseObject({
  region: InputRect.optional().describe('Only mouse and screen events inside this desktop area.'),
  keys: z
    .array(
      plainText(
        z.string().min(1).max(MAX_KEY_COMBO_LENGTH),
        'a key name or character the AI wants key_press events for',
      ),
    )
    .min(1)
    .max(50)
    .optional()
    .describe('Only key_press events for these key names or characters.'),
});

export const SubscribeEventsInput = z.strictObject({
  events: z
    .array(EventType)
    .min(1)
    .max(EVENT_TYPES.length)
    .refine((list) => new Set(list).size === list.length, {
      error: 'must not list the same event type twice',
    })
    .describe(
      'Event types to collect: mouse_move, mouse_click, key_press, window_focus (the viewer window gained/lost focus), screen_change.',
    ),
  debounce_ms: z
    .number()
    .min(0)
    .max(10_000)
    .transform(Math.round)
    .default(100)
    .describe('Drop events of the same type closer together than this (default 100 ms).'),
  filter: EventFilter.optional().describe(
    "Narrow which events are kept. Keys other than region and keys are ignored (listed in the result's ignored field).",
  ),
});
export const SubscribeEventsResult = z.strictObject({
  subscription_id: SubscriptionId,
  subscribed: z.array(EventType).max(EVENT_TYPES.length).describe('Event types collected.'),
  ignored: IgnoredKeys,
});

export const subscribeEvents = defineTool({
  name: 'subscribe_events',
  title: 'Subscribe to events',
  description:
    'Starts collecting what the person does in the viewer (pointer moves and clicks, key presses, window focus) and screen changes, so you can follow along or wait for them to finish a step. Events are buffered; read them with get_events. Positions are desktop pixels. Returns a subscription_id.',
  input: SubscribeEventsInput,
  result: SubscribeEventsResult,
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  kind: 'events',
  runsIn: 'bridge',
  policyClass: 'free',
  looseObjects: { filter: Object.keys(EventFilter.shape) },
  summarize: (_a, r) =>
    `Subscribed to ${r.subscribed.join(', ')} as ${r.subscription_id}; read with get_events, or subscribe to the resource events://${r.subscription_id} to be notified.`,
});

export const UnsubscribeEventsInput = z.strictObject({ subscription_id: SubscriptionId });
export const UnsubscribeEventsResult = z.strictObject({
  ok: z
    .boolean()
    .describe('True when the subscription was cancelled; false when no subscription had this id.'),
  unsubscribed: z.boolean().describe('Same as ok (kept for older clients).'),
});

export const unsubscribeEvents = defineTool({
  name: 'unsubscribe_events',
  title: 'Unsubscribe from events',
  description:
    'Stops a subscription from subscribe_events and discards its buffered events. Returns ok=false when the id is unknown.',
  input: UnsubscribeEventsInput,
  result: UnsubscribeEventsResult,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  kind: 'events',
  runsIn: 'bridge',
  policyClass: 'free',
  summarize: (a, r) =>
    r.ok
      ? `Unsubscribed ${a.subscription_id}.`
      : `No subscription ${a.subscription_id} in this session.`,
});

export const MAX_EVENTS_PER_READ = 1000;

export const GetEventsInput = z.strictObject({
  subscription_id: SubscriptionId.optional().describe(
    'Read this subscription; omit to read all of your subscriptions.',
  ),
  max: z
    .int()
    .min(1)
    .max(MAX_EVENTS_PER_READ)
    .default(100)
    .describe('Return at most this many events, oldest first (1..1000, default 100).'),
});
export const GetEventsResult = z.strictObject({
  events: z
    .array(UiEvent)
    .max(MAX_EVENTS_PER_READ)
    .describe('Events oldest first; removed from the buffer.'),
  dropped: z.int().min(0).describe('Events lost since the last read because the buffer was full.'),
});

export const getEvents = defineTool({
  name: 'get_events',
  title: 'Get events',
  description:
    'Returns and removes buffered events from subscribe_events, oldest first, each with type, at (epoch milliseconds) and data (positions in desktop pixels). dropped counts events lost because you read too rarely.',
  input: GetEventsInput,
  result: GetEventsResult,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  kind: 'events',
  runsIn: 'bridge',
  policyClass: 'free',
  summarize: (_a, r) =>
    `${r.events.length} event(s)${r.dropped > 0 ? `, ${r.dropped} dropped because the buffer was full` : ''}.`,
});
