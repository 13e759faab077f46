// "Are you still there?" between the bridges of a site: asked of the bridge running a forwarded
// call while the call waits (remoteControl.ts) and of a lease's holder before its lease is taken
// over (controlLeases.ts). The ping and its answer are sealed like every other message on the bus
// (siteSeal.ts), and only an answer that opens — sealed with the site's key for this request's
// own reply inbox, not seen before, from the bridge asked — says "alive". So a process that holds
// the site's NATS credentials but not its key cannot make a dead bridge look alive: its answers
// are dropped, and its mere listening on the subject (which keeps NATS from saying "nobody is
// there") only turns the quick "gone" into "silent", which the caller bounds by time.
// Every answer to one ping is read (not only the first), so an intruder answering first cannot
// hide the real bridge's answer either.
import { ErrorCode, NatsError, RequestStrategy } from 'nats';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import { BridgePing, BridgePong } from './messages.js';
import type { SiteBus } from './siteBus.js';

/**
 * alive: the bridge answered with a valid seal. gone: NATS has nobody listening at its subject
 * (it died or left). silent: no valid answer within the wait (slow, or someone else listening).
 */
export type Liveness = 'alive' | 'gone' | 'silent';

/** Answers this bridge's pings, sealed for the asker's reply inbox. */
export function answerPings(bus: SiteBus): void {
  bus.listen(bus.bridgeSubject(bus.bridgeId, 'ping'), BridgePing, (_ping, msg) => {
    if (msg.reply === undefined || msg.reply === '') return;
    msg.respond(bus.sealReply(msg, { type: 'pong', from: bus.bridgeId }));
  });
}

/** Asks `bridge` whether it is there, waiting up to `waitMs` for an answer that opens. */
export async function pingBridge(
  bus: SiteBus,
  bridge: string,
  waitMs: number,
  logger: Logger,
): Promise<Liveness> {
  const subject = bus.bridgeSubject(bridge, 'ping');
  try {
    const replies = await bus.nc.requestMany(
      subject,
      bus.seal(subject, { type: 'ping', from: bus.bridgeId }),
      { maxWait: waitMs, maxMessages: -1, strategy: RequestStrategy.Timer },
    );
    for await (const reply of replies) {
      const pong = bus.openReply(BridgePong, reply);
      if (pong.ok && pong.message.from === bridge) return 'alive';
      bus.dropped.warn(
        { bridge, error: pong.ok ? 'from another bridge' : pong.error },
        'site: dropped an answer to a ping that failed its seal or schema',
      );
    }
  } catch (err) {
    if (err instanceof NatsError && err.code === (ErrorCode.NoResponders as string)) return 'gone';
    logger.debug({ bridge, err: errorMessage(err) }, 'site: a ping went unanswered');
  }
  return 'silent';
}
