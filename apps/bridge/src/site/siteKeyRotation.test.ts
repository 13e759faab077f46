// The bus key rotated without downtime (siteKeys.ts, siteSeal.ts, siteConfig.ts). With the seal
// alone: mid-rotation a bridge sealing with the old key and one sealing with the new open each
// other's messages; a bridge no longer given a key refuses what was sealed with it (messages and
// key-value values), with words naming the key's id; a message relabelled with another key's id,
// or sealed by another key under a known id, never opens; the id is the number the operator gave,
// whatever the key. With
// real bridges (nats-server, PostgreSQL): mid-rotation, the AI's click on one bridge reaches the
// window on another and its answer comes back (request under one key, reply under the other); a
// bridge whose keys no longer include the database's refuses the leases and broadcasts sealed with
// it, so a call there for that window fails closed.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { callTool, errorOf } from '../mcp/testing/calls.js';
import { connectClient } from '../mcp/testing/fixtures.js';
import { ScriptedViewer } from '../mcp/testing/scriptedViewer.js';
import { postgresRequired } from '../store/testing/postgres.js';
import type { SettingsRepo } from '../store/types.js';
import { readBusKeys } from './siteConfig.js';
import { DATABASE_BUS_KEY, SiteKeys, type BusKeyConfig } from './siteKeys.js';
import { MESSAGE_MAX_AGE_MS, SeenSeals, SiteSeal } from './siteSeal.js';
import { natsRequired } from './testing/natsServer.js';
import { startSiteServers } from './testing/siteServers.js';
import { startSiteBridge, TOKEN, type SiteBridge } from './testing/siteBridges.js';
import { waitUntil } from './testing/waitUntil.js';

const SITE_ID = 'a1b2c3d4';
const WHERE = `oc.${SITE_ID}.bridge.bOne.call`;
const Said = z.strictObject({ type: z.literal('said'), text: z.string() });
const hex = (): string => randomBytes(32).toString('hex');
const NEW = `1:${hex()}`;
const NEXT = `2:${hex()}`;

/** The bus keys read from the variables an operator sets, as a bridge reads them. */
const given = (env: { OC_SITE_BUS_KEY?: string; OC_SITE_BUS_KEYS_ACCEPTED?: string }) =>
  readBusKeys(env) ?? { accepted: [] };

describe('the bus key rotated, with the seal alone', () => {
  const secret = hex();
  const settings = { get: () => Promise.resolve(secret) } as unknown as SettingsRepo;
  const sealWith = async (bus: BusKeyConfig): Promise<SiteSeal> =>
    new SiteSeal(await SiteKeys.load(settings, SITE_ID, bus));
  const opens = (seal: SiteSeal, data: Uint8Array) =>
    seal.open(WHERE, Said, data, { seen: new SeenSeals() });

  test("mid-rotation, the old key's bridges and the new key's open each other", async () => {
    // Step 1 done: every bridge opens key 1 and still seals with the database's (key 0).
    const old = await sealWith(given({ OC_SITE_BUS_KEYS_ACCEPTED: NEW }));
    // Step 2 under way on this one: it seals with key 1 and still opens key 0.
    const renewed = await sealWith(given({ OC_SITE_BUS_KEY: NEW, OC_SITE_BUS_KEYS_ACCEPTED: '0' }));
    const said = { type: 'said', text: 'hello' };
    expect(opens(renewed, old.seal(WHERE, said))).toEqual({ ok: true, message: said });
    expect(opens(old, renewed.seal(WHERE, said))).toEqual({ ok: true, message: said });
  });

  test('a key no longer given opens nothing, messages nor values; the refusal names its id', async () => {
    const old = await sealWith(given({}));
    const renewed = await sealWith(given({ OC_SITE_BUS_KEY: NEW, OC_SITE_BUS_KEYS_ACCEPTED: '0' }));
    // Step 3 done: key 0 retired.
    const retired = await sealWith(given({ OC_SITE_BUS_KEY: NEW }));
    const said = { type: 'said', text: 'under key 0' };
    const refusal = {
      ok: false,
      error: expect.stringMatching(
        /^sealed with bus key 0, which this bridge was not given/,
      ) as unknown,
    };
    expect(opens(retired, old.seal(WHERE, said))).toEqual(refusal);
    expect(
      retired.open(WHERE, Said, old.seal(WHERE, said), { maxAgeMs: MESSAGE_MAX_AGE_MS }),
    ).toEqual(refusal);
    // Its own and the renewed bridges' messages (key 1) still open.
    expect(opens(retired, renewed.seal(WHERE, said)).ok).toBe(true);
    // The next rotation: a bridge on key 2 that retired key 1 refuses key 1, and key 0 too.
    const next = await sealWith(given({ OC_SITE_BUS_KEY: NEXT }));
    expect(opens(next, renewed.seal(WHERE, said))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^sealed with bus key 1, which/) as unknown,
    });
  });

  test('a key id changed or a key swapped under a known id never opens', async () => {
    const renewed = await sealWith(given({ OC_SITE_BUS_KEY: NEW, OC_SITE_BUS_KEYS_ACCEPTED: '0' }));
    const sealed = Buffer.from(renewed.seal(WHERE, { type: 'said', text: 'x' }));
    // Key 1's message relabelled as key 0 (which this bridge also has): opened with key 0, which
    // did not seal it (and the id is under the tag besides).
    sealed.writeUInt16BE(DATABASE_BUS_KEY, 1);
    expect(opens(renewed, sealed)).toEqual({ ok: false, error: "not sealed with the site's key" });
    // Another key given the same id by someone else: not the site's key 1.
    const impostor = await sealWith(given({ OC_SITE_BUS_KEY: `1:${hex()}` }));
    expect(opens(renewed, impostor.seal(WHERE, { type: 'said', text: 'x' }))).toEqual({
      ok: false,
      error: "not sealed with the site's key",
    });
  });

  test('the key id is the number the operator gave: it says nothing of the key', async () => {
    const a = await sealWith(given({ OC_SITE_BUS_KEY: `7:${hex()}` }));
    const b = await sealWith(given({ OC_SITE_BUS_KEY: `7:${hex()}` }));
    const database = await sealWith(given({}));
    const header = (seal: SiteSeal): Buffer =>
      Buffer.from(seal.seal(WHERE, { type: 'said', text: 'x' })).subarray(0, 3);
    expect([...header(a)]).toEqual([2, 0, 7]);
    expect(header(a).equals(header(b))).toBe(true);
    expect([...header(database)]).toEqual([2, 0, 0]);
  });

  test('the variables: ids 1–65535 with 64 hex digits, 0 alone for the database, one key per id', () => {
    const key = hex();
    expect(readBusKeys({})).toBeUndefined();
    const read = readBusKeys({
      OC_SITE_BUS_KEY: `3:${key}`,
      OC_SITE_BUS_KEYS_ACCEPTED: ` 0, 2:${hex()} `,
    });
    expect(read?.current?.id).toBe(3);
    expect(read?.current?.secret.toString('hex')).toBe(key);
    expect(read?.accepted.map((k) => (k === DATABASE_BUS_KEY ? 0 : k.id))).toEqual([0, 2]);
    const refusals: [Record<string, string>, RegExp][] = [
      [{ OC_SITE_BUS_KEY: '0' }, /key 0 is the one derived from the database/],
      [{ OC_SITE_BUS_KEY: `0:${key}` }, /key 0 is the one derived from the database/],
      [{ OC_SITE_BUS_KEY: `65536:${key}` }, /ID a number from 1 to 65535/],
      [{ OC_SITE_BUS_KEY: `1:${key.slice(2)}` }, /64 hex digits/],
      [{ OC_SITE_BUS_KEY: key }, /ID:HEX/],
      [{ OC_SITE_BUS_KEY: `1:${key}`, OC_SITE_BUS_KEYS_ACCEPTED: `1:${hex()}` }, /twice/],
    ];
    for (const [env, words] of refusals) {
      let message = '';
      try {
        readBusKeys(env);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, JSON.stringify(Object.keys(env))).toMatch(words);
      // Never the key itself in the words (they reach logs).
      expect(message).not.toContain(key.slice(2, 40));
    }
  });
});

const { nats, postgres, missing } = await startSiteServers();

test('nats-server and PostgreSQL run the rotation suite (required in CI)', (ctx) => {
  if (missing === undefined) return;
  if (natsRequired() || postgresRequired())
    throw new Error(`rotation tests cannot run: ${missing}`);
  ctx.skip(missing);
});

describe.runIf(missing === undefined)('real bridges in the middle of a rotation', () => {
  let one: SiteBridge;
  let two: SiteBridge;
  let three: SiteBridge | undefined;

  beforeAll(async () => {
    const databaseUrl = await postgres.newDatabase();
    const server = { servers: [nats.address], token: nats.token };
    // Bridge 1 still seals with the database's key and opens the new one; bridge 2 was
    // restarted with the new key and still opens the database's.
    one = await startSiteBridge({
      name: 'rotate one',
      databaseUrl,
      site: { ...server, busKeys: given({ OC_SITE_BUS_KEYS_ACCEPTED: NEW }) },
      initialMode: 'autopilot',
    });
    two = await startSiteBridge({
      name: 'rotate two',
      databaseUrl,
      site: { ...server, busKeys: given({ OC_SITE_BUS_KEY: NEW, OC_SITE_BUS_KEYS_ACCEPTED: '0' }) },
      initialMode: 'autopilot',
    });
    // Bridge 3 has retired the database's key (step 3) while bridge 1 still seals with it.
    three = await startSiteBridge({
      name: 'rotate three',
      databaseUrl,
      site: { ...server, busKeys: given({ OC_SITE_BUS_KEY: NEW }) },
      initialMode: 'autopilot',
    });
  });
  afterAll(async () => {
    await three?.close();
    await two?.close();
    await one?.close();
  });

  test("the AI's click on bridge 2 reaches the window on bridge 1 and its answer comes back", async () => {
    const window = await ScriptedViewer.connect(one);
    window.on('click_at', { result: { success: true, was_confirmed: false } });
    // Bridge 1's lease (sealed with key 0) read on bridge 2.
    await waitUntil(() => two.site!.remote.controlElsewhere(two.desktopId), 5000);
    const ai = await connectClient(two, { token: TOKEN });
    try {
      const click = await callTool(ai.client, 'click_at', { x: 21, y: 43 });
      expect(click.isError).toBeFalsy();
      expect(window.toolCalls('click_at').at(-1)?.args).toMatchObject({ x: 21, y: 43 });
    } finally {
      await ai.client.close();
      await window.close();
    }
  });

  test('a bridge that retired the old key refuses what is sealed with it: its call fails closed', async () => {
    const window = await ScriptedViewer.connect(one);
    window.on('click_at', { result: { success: true, was_confirmed: false } });
    await waitUntil(() => two.site!.remote.controlElsewhere(two.desktopId), 5000);
    // Bridge 1 seals its lease and broadcasts with key 0, which bridge 3 no longer opens.
    await waitUntil(
      () => three!.log.text().includes('sealed with bus key 0, which this bridge was not given'),
      5000,
    );
    const ai = await connectClient(three!, { token: TOKEN });
    try {
      const before = window.toolCalls('click_at').length;
      const error = errorOf(await callTool(ai.client, 'click_at', { x: 5, y: 6 }));
      expect(error.kind).toBe('viewer_unavailable');
      expect(window.toolCalls('click_at')).toHaveLength(before);
    } finally {
      await ai.client.close();
      await window.close();
    }
  });
});
