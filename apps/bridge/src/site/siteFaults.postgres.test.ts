// The site's PostgreSQL stopped and started again under three bridges, for real (a token-protected
// nats-server and the throwaway PostgreSQL cluster on loopback): the person's control window on
// bridge 1, the AI's MCP session on bridge 2 (its calls cross the bus). While the database is
// away the AI's input is refused once bridge 2's small audit queue is full (it cannot be
// recorded), its screenshots go on, and /readyz says the database and the audit are out; once it
// is back every call the AI made has its audit entry, in order, at its time, with the entry that
// says where the gap was, and the site works again: input across bridges, and a token made on
// one bridge used on another. Times printed (stopped → input refused, back → input answered).
import { API } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { NOT_READY } from '../health/readiness.js';
import { readyz, readyzBecomes } from '../health/testing/readyz.js';
import {
  answerCalls,
  auditCaughtUp,
  callUntilInputRefused,
  entriesSince,
  expectEveryCallAudited,
  makeCall,
  outageEntry,
  type CallMade,
} from '../faults/testing/outageRun.js';
import { callTool } from '../mcp/testing/calls.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { startSiteServers } from './testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';

const { nats, postgres, missing } = await startSiteServers();

/** Small, so a few calls fill it; input is refused at this many waiting entries. */
const QUEUE = { entries: 10, bytes: 1024 * 1024 };
/** How long the database is away (past the token cache's 2 s). */
const OUTAGE_MS = 5_000;

describe.runIf(missing === undefined && postgres.outage !== undefined)(
  'PostgreSQL stopped and started under a site',
  () => {
    let one: SiteBridge;
    let two: SiteBridge;
    let three: SiteBridge;

    beforeAll(async () => {
      const databaseUrl = await postgres.newDatabase();
      const site = { servers: [nats.address], token: nats.token };
      const start = (name: string) =>
        startSiteBridge({ name, databaseUrl, site, initialMode: 'autopilot', auditQueue: QUEUE });
      one = await start('p one');
      two = await start('p two');
      three = await start('p three');
    }, 60_000);
    afterAll(async () => {
      for (const bridge of [three, two, one]) await bridge?.close();
    }, 60_000);

    test('input refused while the audit cannot be written, every entry kept, the site back', async () => {
      const outage = postgres.outage!;
      const control = await ScriptedViewer.connect(one);
      answerCalls(control);
      await waitUntil(() => two.site!.remote.controlElsewhere(two.desktopId), 5000);
      const { client } = await connectClient(two, { token: TOKEN });
      const from = Date.now();
      const calls: CallMade[] = [await makeCall(client, 'click_at')];
      expect(calls[0]?.outcome).toBe('ok');

      await outage.begin();
      const began = Date.now();
      calls.push(...(await callUntilInputRefused(client, began + OUTAGE_MS - 1_000)));
      const firstRefused = calls.find((c) => c.tool === 'click_at' && c.outcome !== 'ok');
      const down = await readyzBecomes(two, 503);
      expect(down.text).toContain(NOT_READY.database);
      expect(down.text).toContain(NOT_READY.audit);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, began + OUTAGE_MS - Date.now())),
      );
      await outage.end();
      const ended = Date.now();

      // Refused for the audit's sake, with a time to retry; screenshots went on meanwhile.
      const refused = calls.filter((c) => c.tool === 'click_at' && c.outcome !== 'ok');
      expect(refused.length).toBeGreaterThanOrEqual(3);
      for (const call of refused) {
        expect(call.outcome).toBe('rate_limited');
        expect(call.retryAfterMs).toBeGreaterThan(0);
        expect(call.message).toMatch(/audit log cannot be written/);
      }
      const afterRefusal = calls.slice(calls.indexOf(refused[0]!));
      expect(afterRefusal.some((c) => c.tool === 'take_screenshot' && c.outcome === 'ok')).toBe(
        true,
      );
      // Nothing refused reached the window: it saw the clicks that returned ok, no more.
      expect(control.toolCalls('click_at')).toHaveLength(
        calls.filter((c) => c.tool === 'click_at' && c.outcome === 'ok').length,
      );

      // Back: the AI's input goes through again, across the bridges — asked again after the
      // time each refusal gives, as a compliant AI does.
      let inputBack = NaN;
      for (;;) {
        const call = await makeCall(client, 'click_at');
        calls.push(call);
        if (call.outcome === 'ok') break;
        expect(call.outcome).toBe('rate_limited');
        expect(Date.now() - ended).toBeLessThan(60_000);
        await new Promise((resolve) => setTimeout(resolve, call.retryAfterMs ?? 1_000));
      }
      inputBack = Date.now() - ended;
      for (const bridge of [one, two, three]) await auditCaughtUp(bridge);
      const entries = await entriesSince(two, from);
      const ok = expectEveryCallAudited(calls, entries);
      const gap = outageEntry(entries);
      expect(gap.at).toBeGreaterThanOrEqual(ended - 1);
      await readyzBecomes(
        two,
        (a) => !a.text.includes(NOT_READY.database) && !a.text.includes(NOT_READY.audit),
      );

      // A token made on bridge 3 works on bridge 1 (the store is written and read again).
      const made = await three.session.request(API.tokens, { body: { name: 'after the outage' } });
      expect(made.status).toBe(201);
      const { secret } = (await made.json()) as { secret: string };
      const fresh = await connectClient(one, { token: secret });
      expect((await callTool(fresh.client, 'list_desktops')).isError).toBeFalsy();
      expect((await readyz(one)).text).not.toContain(NOT_READY.database);

      console.log(
        `[site] PostgreSQL stopped ${String(OUTAGE_MS)} ms under 3 bridges: the AI's input across bridges refused ${String(
          (firstRefused?.returnedAt ?? NaN) - began,
        )} ms after (queue of ${String(QUEUE.entries)} full), ${String(refused.length)} refused, screenshots went on; input answered again ${String(inputBack)} ms after the restart; ${String(calls.length)} calls (${String(ok)} ok), ${String(entries.filter((e) => e.kind === 'tool_call').length)} tool-call entries, the gap entry after them`,
      );
      await fresh.client.close();
      await client.close();
      await control.close();
    }, 120_000);
  },
);
