// "Applied" answers to revocations, for real: a bridge on a real nats-server and PostgreSQL, a
// second member of its site made of a bus (the site's keys from its database) whose apply is
// slowed by the test, and an intruder — a raw NATS client holding the site's NATS token but not
// its database — answering every broadcast at once with an empty answer, an envelope whose tag it
// made up, and the genuine "applied" answers it saw before. A token's DELETE answers only after
// the slow member applied the revocation, whatever the intruder says; and a bridge alone does not
// wait for anyone (NATS says nobody listens).
import { API } from '@overlay-companion/protocol';
import { connect, type Msg, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../logger.js';
import type { SiteEvent } from './messages.js';
import { APPLIED_WAIT_MS, SiteAcks } from './siteAcks.js';
import { SiteBus } from './siteBus.js';
import { SiteKeys } from './siteKeys.js';
import { badlySealed } from './testing/sealed.js';
import { startSiteServers } from './testing/siteServers.js';
import { startSiteBridge, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';

const { nats, postgres, missing } = await startSiteServers();

describe.runIf(missing === undefined)('a revocation is applied everywhere when it returns', () => {
  const n = nats;
  let one: SiteBridge;
  let slow: SiteBus;
  let slowAcks: SiteAcks;
  let intruder: NatsConnection;
  /** What happened, in order: the slow member's apply and the DELETE's answer. */
  const order: string[] = [];
  /** The slow member holds its apply of a revocation this long (within the sender's wait). */
  let holdMs = 0;
  let heldEvents = 0;
  /** Genuine "applied" answers seen on the bus (the intruder replays them). */
  const captured: Uint8Array[] = [];

  const revoke = async (name: string): Promise<void> => {
    const made = await one.session.request(API.tokens, { body: { name } });
    expect(made.status).toBe(201);
    const { token } = (await made.json()) as { token: { id: string } };
    const revoked = await one.session.request(`${API.tokens}/${token.id}`, { method: 'DELETE' });
    order.push('DELETE answered');
    expect(revoked.status).toBe(200);
  };

  beforeAll(async () => {
    const databaseUrl = await postgres.newDatabase();
    one = await startSiteBridge({
      name: 'acks one',
      databaseUrl,
      site: { servers: [n.address], token: n.token },
    });
    const settings = one.access.store.settings;
    const siteId = (await settings.get('site_id')) as string;
    slow = await SiteBus.join({
      config: { servers: [n.address], token: n.token },
      siteId,
      logger: silentLogger(),
      keys: await SiteKeys.load(settings, siteId),
    });
    slowAcks = new SiteAcks(slow, silentLogger());
    const slowApply = async (event: SiteEvent): Promise<void> => {
      if (event.type !== 'tokens_invalidated' || holdMs === 0) return;
      heldEvents += 1;
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      order.push('applied on the slow member');
    };
    slow.onEvent((event, msg) => slowAcks.answerOnceApplied(event, msg, slowApply(event)));
    intruder = await connect({ servers: n.address, token: n.token });
    intruder.subscribe(`oc.${siteId}.bridge.*.applied.*`, {
      callback: (_err, msg) => {
        if (msg.data.byteLength > 0) captured.push(msg.data);
      },
    });
  });
  afterAll(async () => {
    slowAcks.close();
    await slow.close();
    await intruder.close();
    await one.close();
  });

  test('the DELETE answers after the other member applied it', async () => {
    // A first revocation: the slow member answers at once (and so is known to bridge one).
    await revoke('warm up');
    await waitUntil(() => captured.length > 0);
    order.length = 0;
    holdMs = APPLIED_WAIT_MS / 4;
    await revoke('held');
    expect(heldEvents).toBe(1);
    expect(order).toEqual(['applied on the slow member', 'DELETE answered']);
  });

  test("an intruder's answers end no wait", async () => {
    let answeredByIntruder = 0;
    const answer = (msg: Msg): void => {
      if (msg.reply === undefined) return;
      intruder.publish(msg.reply, new Uint8Array(0));
      intruder.publish(msg.reply, badlySealed({ type: 'applied', from: 'bintruder' }));
      for (const genuine of captured) intruder.publish(msg.reply, genuine);
      answeredByIntruder += 1;
    };
    const siteId = (await one.access.store.settings.get('site_id')) as string;
    const listening = intruder.subscribe(`oc.${siteId}.events`, {
      callback: (_err, msg) => answer(msg),
    });
    await intruder.flush();
    order.length = 0;
    heldEvents = 0;
    await revoke('held behind an intruder');
    listening.unsubscribe();
    expect(heldEvents).toBe(1);
    expect(answeredByIntruder).toBeGreaterThan(0);
    expect(order).toEqual(['applied on the slow member', 'DELETE answered']);
    const log = one.log.text();
    expect(log).toContain('dropped an \\"applied\\" that failed its seal or schema');
    // Made-up tags and genuine answers sealed for another broadcast's reply subject alike.
    expect(log).toContain("not sealed with the site's key");
    expect(log).toContain('"error":"not sealed"');
  });

  test('a bridge alone waits for nobody', async () => {
    holdMs = 0;
    slowAcks.close();
    await slow.close();
    const before = one.log.text().length;
    order.length = 0;
    await revoke('alone');
    await revoke('alone again');
    // Nobody answered: only NATS's "no responders" ended the waits before their deadline.
    expect(one.log.text().slice(before)).not.toContain('in time');
  });
});
