// Event tools, run by the bridge: subscriptions filter and buffer the UI events viewers stream
// (`event` messages); get_events drains them. A subscribed client is told about new events with
// resources/updated on events://<subscription_id> (see resources.ts).
import {
  EVENT_PERMISSIONS,
  eventAllowed,
  ProtocolError,
  permissionDeniedMessage,
} from '@overlay-companion/protocol';
import { MAX_SUBSCRIPTIONS_PER_SESSION } from '../events/subscriptions.js';
import { implementTool } from '../toolkit.js';

export const subscribeEvents = implementTool('subscribe_events', (args, ctx) => {
  // Reading the person's own input needs their toggle (key presses start off): refuse the whole
  // subscription, naming the toggle, rather than silently collecting less than was asked.
  const permissions = ctx.plane.permissions();
  const refused = args.events.find((type) => !eventAllowed(permissions, type));
  if (refused !== undefined) {
    throw new ProtocolError(
      'permission_denied',
      permissionDeniedMessage(`Subscribing to ${refused} events`, EVENT_PERMISSIONS[refused]),
    );
  }
  const id = ctx.session.events.subscribe(args);
  if (id === undefined) {
    throw new ProtocolError(
      'invalid_parameters',
      `This session already has ${MAX_SUBSCRIPTIONS_PER_SESSION} subscriptions; unsubscribe_events one you no longer need first.`,
    );
  }
  return Promise.resolve({ structured: { subscription_id: id, subscribed: args.events } });
});

export const unsubscribeEvents = implementTool('unsubscribe_events', (args, ctx) => {
  const unsubscribed = ctx.session.events.unsubscribe(args.subscription_id);
  ctx.session.resourceSubscriptions.delete(`events://${args.subscription_id}`);
  return Promise.resolve({ structured: { ok: unsubscribed, unsubscribed } });
});

export const getEvents = implementTool('get_events', (args, ctx) => {
  const drained = ctx.session.events.drain(args.subscription_id, args.max);
  if (drained === undefined) {
    throw new ProtocolError(
      'invalid_parameters',
      `subscription_id: no subscription ${args.subscription_id ?? ''} in this session; use an id returned by subscribe_events.`,
    );
  }
  return Promise.resolve({ structured: drained });
});
