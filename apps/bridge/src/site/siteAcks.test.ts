// "Applied" answers to revocations, for real: a bridge on a real nats-server and PostgreSQL, a
// second member of its site made of a bus (the site's keys from its database) whose apply is
// slowed by the test, and an intruder — a raw NATS client holding the site's NATS token but not
// its database — answering every broadcast at once with an empty answer, an envelope whose tag it
// made up, and the genuine "applied" answers it saw before. A token's DELETE answers only after
// the slow member applied the revocation, whatever the intruder says; and a bridge alone does not
// wait for anyone (NATS says nobody listens). The reply subject is sealed with the broadcast: a
// captured one sent again with another reply subject to a member that never saw it (a restarted
// bridge) opens nowhere and is answered by nobody; NATS's "no responders" forged by the intruder
// ends no wait while a member is known. A sign-out and ended MCP sessions (a token's DELETE) also
// answer only once the other member applied them. A bridge alone waits for nobody even while
// someone with the NATS credentials listens in silence (so NATS never says "no responders"):
// alone is told by the site's sealed presence (bridge_here), not by NATS; and a flood of forged
// broadcasts from there is dropped with a bounded number of warning lines, not one each.
import { API } from '@overlay-companion/protocol';
import { connect, headers, type Msg, type NatsConnection } from 'nats';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { silentLogger } from '../logger.js';
import { signIn } from '../testing/browserSession.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../testing/testAccess.js';
import type { SiteEvent } from './messages.js';
import { DROP_WARNINGS_PER_MINUTE } from './dropWarnings.js';
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
  /** The slow member holds its apply of `holdType` this long (within the sender's wait). */
  let holdMs = 0;
  let holdType: SiteEvent['type'] = 'tokens_invalidated';
  let heldEvents = 0;
  /** Genuine "applied" answers seen on the bus (the intruder replays them). */
  const captured: Uint8Array[] = [];

  let databaseUrl = '';

  const revoke = async (name: string, on: SiteBridge = one): Promise<void> => {
    const made = await on.session.request(API.tokens, { body: { name } });
    expect(made.status).toBe(201);
    const { token } = (await made.json()) as { token: { id: string } };
    const revoked = await on.session.request(`${API.tokens}/${token.id}`, { method: 'DELETE' });
    order.push('DELETE answered');
    expect(revoked.status).toBe(200);
  };

  beforeAll(async () => {
    databaseUrl = await postgres.newDatabase();
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
      if (event.type !== holdType || holdMs === 0) return;
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
      // NATS's own "nobody listens", which cannot be sealed.
      intruder.publish(msg.reply, new Uint8Array(0), { headers: headers(503, 'No Responders') });
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

  test('a sign-out answers after the other member applied it', async () => {
    const other = await signIn(one.url, ADMIN_USERNAME, ADMIN_PASSWORD);
    order.length = 0;
    heldEvents = 0;
    holdType = 'sign_in_sessions_ended';
    holdMs = APPLIED_WAIT_MS / 4;
    const out = await other.request(API.signOut, { body: {} });
    order.push('DELETE answered');
    expect(out.status).toBeLessThan(300);
    expect(heldEvents).toBe(1);
    expect(order).toEqual(['applied on the slow member', 'DELETE answered']);
  });

  test('ended MCP sessions (a token revoked) answer after the other member applied them', async () => {
    order.length = 0;
    heldEvents = 0;
    holdType = 'mcp_sessions_ended';
    holdMs = APPLIED_WAIT_MS / 4;
    await revoke('its MCP sessions held');
    expect(heldEvents).toBe(1);
    expect(order).toEqual(['applied on the slow member', 'DELETE answered']);
    holdType = 'tokens_invalidated';
  });

  test('a bridge that joins learns the others as it says it is here: its first revocation waits for them', async () => {
    const two = await startSiteBridge({
      name: 'acks two',
      databaseUrl,
      site: { servers: [n.address], token: n.token },
    });
    try {
      // The slow member said nothing since two joined but its answer to two's bridge_here.
      order.length = 0;
      heldEvents = 0;
      holdMs = APPLIED_WAIT_MS / 4;
      await revoke('first on two', two);
      expect(heldEvents).toBe(1);
      expect(order).toEqual(['applied on the slow member', 'DELETE answered']);
    } finally {
      holdMs = 0;
      await two.close();
    }
  });

  test('a captured broadcast sent with another reply subject opens on no member', async () => {
    holdMs = 0;
    const siteId = (await one.access.store.settings.get('site_id')) as string;
    const broadcasts: Msg[] = [];
    const listening = intruder.subscribe(`oc.${siteId}.events`, {
      callback: (_err, msg) => {
        if (msg.reply !== undefined) broadcasts.push(msg);
      },
    });
    await intruder.flush();
    await revoke('captured');
    await waitUntil(() => broadcasts.length > 0);
    listening.unsubscribe();
    // A member that never saw it (a bridge restarted since: its replay memory is new).
    const freshLog: string[] = [];
    const fresh = await SiteBus.join({
      config: { servers: [n.address], token: n.token },
      siteId,
      logger: pino({ level: 'warn' }, { write: (line: string) => void freshLog.push(line) }),
      keys: await SiteKeys.load(one.access.store.settings, siteId),
    });
    const freshAcks = new SiteAcks(fresh, silentLogger());
    let applied = 0;
    fresh.onEvent((event, msg) =>
      freshAcks.answerOnceApplied(
        event,
        msg,
        Promise.resolve().then(() => void (applied += 1)),
      ),
    );
    await fresh.nc.flush(); // its subscription is in place before the intruder speaks
    const forged = `${slow.bridgeSubject(one.site!.bus.bridgeId, 'applied')}.forged`;
    let answers = 0;
    intruder.subscribe(forged, { callback: () => void (answers += 1) });
    try {
      for (const msg of broadcasts) intruder.publish(msg.subject, msg.data, { reply: forged });
      intruder.publish(broadcasts[0]!.subject, broadcasts[0]!.data); // and with none
      await intruder.flush();
      await waitUntil(
        () => freshLog.filter((line) => line.includes('failed its seal or schema')).length >= 2,
      );
      expect(freshLog.join('')).toContain("not sealed with the site's key");
      expect(answers).toBe(0);
      expect(applied).toBe(0);
    } finally {
      freshAcks.close();
      await fresh.close();
    }
  });

  test('a bridge alone waits for nobody', async () => {
    holdMs = 0;
    slowAcks.close();
    await slow.close();
    // The first broadcast after the member left waits for it once (and names it); then it is
    // forgotten, and NATS's "no responders" ends each wait at once.
    await revoke('just left');
    const before = one.log.text().length;
    order.length = 0;
    await revoke('alone');
    await revoke('alone again');
    // Nobody answered: only NATS's "no responders" ended the waits before their deadline.
    expect(one.log.text().slice(before)).not.toContain('in time');
  });
});

describe.runIf(missing === undefined)('a bridge alone, with someone else on its NATS', () => {
  let alone: SiteBridge;
  let listener: NatsConnection;
  let heardBroadcasts = 0;

  beforeAll(async () => {
    // Someone with the site's NATS credentials (not its key) listens to every site's broadcasts
    // and never answers: NATS then never says "no responders".
    listener = await connect({ servers: nats.address, token: nats.token });
    listener.subscribe('oc.*.events', { callback: () => void (heardBroadcasts += 1) });
    await listener.flush();
    alone = await startSiteBridge({
      name: 'acks alone',
      databaseUrl: await postgres.newDatabase(),
      site: { servers: [nats.address], token: nats.token },
    });
  });
  afterAll(async () => {
    await listener?.close();
    await alone?.close();
  });

  test('waits for nobody: no other bridge said it is here', async () => {
    const before = alone.log.text().length;
    const heardBefore = heardBroadcasts;
    for (const name of ['alone one', 'alone two']) {
      const made = await alone.session.request(API.tokens, { body: { name } });
      const { token } = (await made.json()) as { token: { id: string } };
      const revoked = await alone.session.request(`${API.tokens}/${token.id}`, {
        method: 'DELETE',
      });
      expect(revoked.status).toBe(200);
    }
    await waitUntil(() => heardBroadcasts > heardBefore);
    // The revocations were broadcast (the listener heard them), and no wait ran to its deadline.
    expect(alone.log.text().slice(before)).not.toContain('in time');
  });

  test('a flood of forged broadcasts is dropped without a warning line for each', async () => {
    const siteId = (await alone.access.store.settings.get('site_id')) as string;
    const dropLines = () =>
      alone.log
        .text()
        .split('\n')
        .filter((line) => line.includes('dropped a message that failed its seal or schema'));
    const before = dropLines().length;
    const forged = 2_000;
    for (let i = 0; i < forged; i++)
      listener.publish(`oc.${siteId}.events`, badlySealed({ type: 'resync', from: 'bintruder' }));
    await listener.flush();
    // A member's genuine broadcast after the flood: once the bridge says it applied it, it has
    // read every forged one before it (one NATS server delivers in the order it received).
    const member = await SiteBus.join({
      config: { servers: [nats.address], token: nats.token },
      siteId,
      logger: silentLogger(),
      keys: await SiteKeys.load(alone.access.store.settings, siteId),
    });
    try {
      const reply = `${member.bridgeSubject(member.bridgeId, 'applied')}.afterflood`;
      let applied = false;
      member.nc.subscribe(reply, { callback: () => void (applied = true) });
      await member.nc.flush();
      await member.publish({ type: 'tokens_invalidated', tokenId: 'after-the-flood' }, reply);
      await waitUntil(() => applied);
    } finally {
      await member.close();
    }
    // At most two minutes' worth one by one (the flood may straddle a minute), not one each.
    expect(dropLines().length - before).toBeLessThanOrEqual(2 * DROP_WARNINGS_PER_MINUTE);
    expect(alone.log.text()).toContain('site: dropped a message that failed its seal or schema');
  });
});
