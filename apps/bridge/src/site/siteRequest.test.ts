// A bridge's requests to another bridge (SiteBus.request: forwarded calls, approval answers,
// overlay fetches), on a real nats-server: two buses of one site (their keys from one made-up
// site secret: no database is needed for the seal) and an intruder — a raw NATS client holding
// the site's NATS token but not its key — that listens on every subject and answers each request
// first: empty, with a made-up tag, with a genuine answer captured from an earlier request
// (a replay), with a genuine answer moved to this request's reply subject, and with NATS's own
// "no responders" status forged. Only the holder's sealed answer ends the wait; nobody listening
// fails it at once; a silent listener makes it a timeout; `fail` and leaving the site end it.
import { randomBytes } from 'node:crypto';
import { connect, headers, type Msg, type NatsConnection } from 'nats';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { SettingsRepo } from '../store/types.js';
import { natsRequired, startTestNats, type TestNats } from './testing/natsServer.js';
import { badlySealed } from './testing/sealed.js';
import { SiteBus } from './siteBus.js';
import { SiteKeys } from './siteKeys.js';
import { NoAnswer } from './siteRequest.js';

const SITE_ID = 'reqtest';
const Echo = z.strictObject({ echo: z.string() });

const nats = await startTestNats();
const missing = 'skip' in nats ? nats.skip : undefined;

test('nats-server runs the request suite (required in CI)', (ctx) => {
  if (missing === undefined) return;
  if (natsRequired()) throw new Error(`request tests cannot run: ${missing}`);
  ctx.skip(missing);
});

describe.runIf(missing === undefined)('requests between the bridges of a site', () => {
  const n = nats as TestNats;
  const secret = randomBytes(32).toString('hex');
  const lines: string[] = [];
  let asker: SiteBus;
  let holder: SiteBus;
  let intruder: NatsConnection;
  /** Genuine answers seen on the bus (the intruder replays and moves them). */
  const captured: Msg[] = [];

  const join = async (logged: boolean): Promise<SiteBus> => {
    const settings = { get: () => Promise.resolve(secret) } as unknown as SettingsRepo;
    return SiteBus.join({
      config: { servers: [n.address], token: n.token },
      siteId: SITE_ID,
      logger: logged
        ? pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) })
        : pino({ level: 'silent' }),
      keys: await SiteKeys.load(settings, SITE_ID),
    });
  };

  beforeAll(async () => {
    asker = await join(true);
    holder = await join(false);
    // The holder echoes, sealed for the asker's reply subject (as a bridge answers); 'slow' a
    // moment later, so the intruder's answers surely come first.
    holder.listen(holder.bridgeSubject(holder.bridgeId, 'call'), Echo, async (message, msg) => {
      if (message.echo === 'slow') await new Promise((resolve) => setTimeout(resolve, 200));
      msg.respond(holder.sealReply(msg, { echo: `${message.echo} back` }));
    });
    await holder.nc.flush();
    intruder = await connect({ servers: n.address, token: n.token });
    intruder.subscribe(`oc.${SITE_ID}.bridge.*.reply.*`, {
      callback: (_err, msg) => void captured.push(msg),
    });
    await intruder.flush();
  });
  afterAll(async () => {
    await intruder?.close();
    await asker?.close();
    await holder?.close();
    await n.stop();
  });

  const callSubject = (): string => asker.bridgeSubject(holder.bridgeId, 'call');

  test("the holder's sealed answer, opened and parsed; nothing of it readable on the wire", async () => {
    const answer = await asker.request(callSubject(), { echo: 'hello' }, Echo, 5_000).answer;
    expect(answer).toEqual({ echo: 'hello back' });
    await intruder.flush();
    const seen = captured.at(-1);
    expect(seen).toBeDefined();
    expect(seen!.subject.startsWith(asker.bridgeSubject(asker.bridgeId, 'reply'))).toBe(true);
    expect(Buffer.from(seen!.data).includes(Buffer.from('hello back'))).toBe(false);
  });

  test('an intruder answering first cannot end the wait: only the sealed answer does', async () => {
    const earlier = captured.at(-1)!;
    const answering = intruder.subscribe(callSubject(), {
      callback: (_err, msg) => {
        if (msg.reply === undefined) return;
        intruder.publish(msg.reply, new Uint8Array());
        intruder.publish(msg.reply, badlySealed({ echo: 'forged' }));
        // A genuine answer sent again where it went (a replay), and moved to this request.
        intruder.publish(earlier.subject, earlier.data);
        intruder.publish(msg.reply, earlier.data);
      },
    });
    await intruder.flush();
    const before = lines.length;
    try {
      const answer = await asker.request(callSubject(), { echo: 'slow' }, Echo, 5_000).answer;
      // Before, the first answer to arrive ended the request (the intruder's: unreadable).
      expect(answer).toEqual({ echo: 'slow back' });
      const dropped = lines
        .slice(before)
        .filter((line) => line.includes('dropped an answer that failed its seal or schema'));
      expect(dropped.join('\n')).toContain("not sealed with the site's key");
      expect(dropped.join('\n')).toContain('not sealed');
      expect(dropped.length).toBeGreaterThanOrEqual(2);
    } finally {
      answering.unsubscribe();
    }
  });

  test('nobody listening fails the request at once; a forged "no responders" does too', async () => {
    const nobody = asker.request(
      asker.bridgeSubject('bNobody', 'call'),
      { echo: 'x' },
      Echo,
      60_000,
    );
    // With a 60 s budget, only NATS's status can end this before the test's own timeout.
    const error = await nobody.answer.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(NoAnswer);
    expect((error as NoAnswer).why).toBe('no responders');
    // Whoever has the NATS credentials can say "nobody there" (a documented limit: it can
    // disrupt, never make a bridge act): the request fails, closed, as for a dead holder.
    const forging = intruder.subscribe(callSubject(), {
      callback: (_err, msg) => {
        if (msg.reply === undefined) return;
        const status = headers(503, 'No Responders');
        intruder.publish(msg.reply, new Uint8Array(), { headers: status });
      },
    });
    await intruder.flush();
    try {
      const forged = await asker.request(callSubject(), { echo: 'y' }, Echo, 60_000).answer.then(
        (answer) => answer,
        (err: unknown) => err,
      );
      // The holder's answer may come first; either way nothing made up is taken as an answer.
      if (forged instanceof NoAnswer) expect(forged.why).toBe('no responders');
      else expect(forged).toEqual({ echo: 'y back' });
    } finally {
      forging.unsubscribe();
    }
  });

  test('a listener that never answers: a timeout; fail() ends the wait with its error', async () => {
    const silent = holder.nc.subscribe(holder.bridgeSubject(holder.bridgeId, 'approve'), {
      callback: () => undefined,
    });
    await holder.nc.flush();
    try {
      const subject = asker.bridgeSubject(holder.bridgeId, 'approve');
      const timedOut = await asker
        .request(subject, { echo: 't' }, Echo, 200)
        .answer.catch((err: unknown) => err);
      expect(timedOut).toBeInstanceOf(NoAnswer);
      expect((timedOut as NoAnswer).why).toBe('timeout');
      const asked = asker.request(subject, { echo: 'f' }, Echo, 60_000);
      const gone = new Error('the holder is gone');
      asked.fail(gone);
      expect(await asked.answer.catch((err: unknown) => err)).toBe(gone);
    } finally {
      silent.unsubscribe();
    }
  });

  test('leaving the site ends every request waiting, and none can be made after', async () => {
    const leaving = await join(false);
    const silent = holder.nc.subscribe(holder.bridgeSubject(holder.bridgeId, 'overlays'), {
      callback: () => undefined,
    });
    await holder.nc.flush();
    try {
      const subject = leaving.bridgeSubject(holder.bridgeId, 'overlays');
      const waiting = leaving
        .request(subject, { echo: 'c' }, Echo, 60_000)
        .answer.catch((err: unknown) => err);
      await leaving.close();
      expect(((await waiting) as NoAnswer).why).toBe('closed');
      const after = await leaving
        .request(subject, { echo: 'd' }, Echo, 60_000)
        .answer.catch((err: unknown) => err);
      expect((after as NoAnswer).why).toBe('closed');
    } finally {
      silent.unsubscribe();
    }
  });
});
