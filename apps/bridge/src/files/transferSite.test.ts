// "Others may transfer files" across a site, all real: two bridges on one PostgreSQL and one
// nats-server, one RDP drive root on this machine for both. The person in charge turns it on
// through bridge one; a control-grant person's upload through bridge two lands (the choice is
// read from the site's database at every check, nothing of it cached in a bridge). Then the
// charge moves on bridge one (the record's write a plane makes when it moves): the upload is
// refused through both bridges, and the earlier person in charge cannot turn it back on.
import { mkdir, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, type DesktopView } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/passwords.js';
import { startSiteServers } from '../site/testing/siteServers.js';
import { startSiteBridge, type SiteBridge } from '../site/testing/siteBridges.js';
import { signIn, type BrowserSession } from '../testing/browserSession.js';
import { rdpDriveFolder } from './rdpDrive.js';
import { chooseOthersMay, uploadAs } from './testing/filesBridge.js';

const { nats, postgres, missing } = await startSiteServers();
const PASSWORD = 'another-password-0123456789';

describe.runIf(missing === undefined)('others may transfer, across the bridges of a site', () => {
  let one: SiteBridge;
  let two: SiteBridge;
  let driveRoot: string;
  let desktop: DesktopView;
  let beaOnTwo: BrowserSession; // control grant
  let beaId: string;

  beforeAll(async () => {
    const databaseUrl = await postgres.newDatabase();
    const site = { servers: [nats.address], token: nats.token };
    driveRoot = join(await mkdtemp(join(tmpdir(), 'oc-transfer-site-')), 'drives');
    await mkdir(driveRoot);
    const files = { rdpDriveRoot: driveRoot };
    one = await startSiteBridge({ name: 'files one', databaseUrl, site, files });
    two = await startSiteBridge({ name: 'files two', databaseUrl, site, files });
    const made = await one.session.request(API.desktops, {
      body: { name: 'RDP', kind: 'guacd-rdp', params: { host: '127.0.0.1', port: 9 } },
    });
    if (made.status !== 201)
      throw new Error(`adding the desktop: ${made.status} ${await made.text()}`);
    desktop = (await made.json()) as DesktopView;
    const bea = await one.access.store.people.add({
      username: 'bea',
      displayName: 'Bea',
      passwordHash: await hashPassword(PASSWORD),
      role: 'member',
    });
    beaId = bea.id;
    await one.access.store.desktops.setGrant(desktop.id, bea.id, 'control');
    beaOnTwo = await signIn(two.url, 'bea', PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  const upload = (session: BrowserSession, name: string): Promise<Response> =>
    uploadAs(session, desktop.id, name);
  const choose = (session: BrowserSession, othersMay: boolean): Promise<Response> =>
    chooseOthersMay(session, desktop.id, othersMay);

  it('a choice made on bridge one lets a control grant transfer on bridge two', async () => {
    expect((await upload(beaOnTwo, 'before.bin')).status).toBe(403);
    expect((await choose(one.session, true)).status).toBe(200);
    expect((await upload(beaOnTwo, 'on two.bin')).status).toBe(201);
    expect(await readdir(rdpDriveFolder(driveRoot, desktop.id))).toContain('on two.bin');
  });

  it('a charge move on bridge one turns it off on both', async () => {
    const beaOnOne = await signIn(one.url, 'bea', PASSWORD);
    const dan = await one.access.store.people.add({
      username: 'dan',
      displayName: 'Dan',
      passwordHash: await hashPassword(PASSWORD),
      role: 'member',
    });
    await one.access.store.desktops.setGrant(desktop.id, dan.id, 'control');
    const danOnOne = await signIn(one.url, 'dan', PASSWORD);
    const danOnTwo = await signIn(two.url, 'dan', PASSWORD);
    expect((await choose(one.session, true)).status).toBe(200);
    expect((await upload(danOnTwo, 'dan on two.bin')).status).toBe(201);

    // The charge moves to Bea on bridge one: the record's write a plane makes when it moves.
    await one.access.store.desktops.update(desktop.id, { inChargeId: beaId });

    expect((await upload(danOnOne, 'dan on one after.bin')).status).toBe(403);
    expect((await upload(danOnTwo, 'dan on two after.bin')).status).toBe(403);
    // The admin is no longer in charge: they cannot turn it back on, from either bridge.
    expect((await choose(one.session, true)).status).toBe(403);
    expect((await choose(two.session, true)).status).toBe(403);
    // Bea, in charge now, transfers herself (through either bridge) and chooses anew.
    expect((await upload(beaOnOne, 'bea on one.bin')).status).toBe(201);
    expect((await choose(beaOnTwo, true)).status).toBe(200);
    expect((await upload(danOnOne, 'dan on one, allowed by bea.bin')).status).toBe(201);
  });
});
