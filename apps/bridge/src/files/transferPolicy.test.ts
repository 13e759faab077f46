// "Others may transfer files" through a real bridge over HTTP on its real SQLite file, into an
// RDP desktop's drive folder: the person in charge's choice lets a control-grant person transfer
// and survives a bridge restart (the same data dir opened again); nobody else can make or undo
// it — not a control-grant person, not a view-grant one, not a page of another origin; a
// view-grant person still may not transfer; and a move of the charge ends it.
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  API,
  FILES_API,
  type DesktopView,
  type TransferListing,
} from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/passwords.js';
import type { ControlledBridge } from '../bridge.js';
import { signIn, type BrowserSession } from '../testing/browserSession.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME, startTestAccess } from '../testing/testAccess.js';
import type { TestAccess } from '../testing/testAccess.js';
import { chooseOthersMay, startFilesBridge, uploadAs } from './testing/filesBridge.js';

const PASSWORD = 'another-password-0123456789';

let dataDir: string;
let driveRoot: string;
let fixture: TestAccess | undefined;
let bridge: ControlledBridge | undefined;
let admin: BrowserSession;
let controller: BrowserSession; // bea: control grant
let other: BrowserSession; // dan: control grant
let watcher: BrowserSession; // cy: view grant
let desktop: DesktopView;

/** Starts a bridge on the test's data dir and signs everyone in (again, after a restart). */
async function start(first: boolean): Promise<void> {
  fixture = await startTestAccess({ dataDir, admin: first });
  bridge = await startFilesBridge(fixture, { rdpDriveRoot: driveRoot });
  admin = await signIn(bridge.url, ADMIN_USERNAME, ADMIN_PASSWORD);
  if (first) {
    const hash = await hashPassword(PASSWORD);
    for (const username of ['bea', 'cy', 'dan'])
      await fixture.store.people.add({
        username,
        displayName: username,
        passwordHash: hash,
        role: 'member',
      });
  }
  controller = await signIn(bridge.url, 'bea', PASSWORD);
  watcher = await signIn(bridge.url, 'cy', PASSWORD);
  other = await signIn(bridge.url, 'dan', PASSWORD);
}

async function stop(): Promise<void> {
  await bridge?.close();
  await fixture?.close();
  bridge = undefined;
  fixture = undefined;
}

const personId = async (username: string): Promise<string> =>
  (await fixture?.store.people.byUsername(username))?.id ?? '';

const upload = (session: BrowserSession, name: string): Promise<Response> =>
  uploadAs(session, desktop.id, name);
const choose = (session: BrowserSession, othersMay: boolean): Promise<Response> =>
  chooseOthersMay(session, desktop.id, othersMay);

const othersMay = async (session: BrowserSession): Promise<boolean> =>
  ((await (await session.request(FILES_API.list(desktop.id))).json()) as TransferListing)
    .others_may_transfer;

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'oc-transfer-policy-'));
  dataDir = join(root, 'data');
  driveRoot = join(root, 'drives');
  await mkdir(driveRoot);
  await start(true);
  const made = await admin.request(API.desktops, {
    body: { name: 'RDP', kind: 'guacd-rdp', params: { host: '127.0.0.1', port: 9 } },
  });
  if (made.status !== 201)
    throw new Error(`adding the desktop: ${made.status} ${await made.text()}`);
  desktop = (await made.json()) as DesktopView;
  const { store } = fixture!;
  await store.desktops.setGrant(desktop.id, await personId('bea'), 'control');
  await store.desktops.setGrant(desktop.id, await personId('dan'), 'control');
  await store.desktops.setGrant(desktop.id, await personId('cy'), 'view');
}, 60_000);

afterAll(stop);

describe('others may transfer', () => {
  it("is the person in charge's alone to choose, and survives a restart", async () => {
    expect((await upload(controller, 'before.bin')).status).toBe(403);
    // Nobody else can turn it on: not a control grant, not a view grant.
    expect((await choose(controller, true)).status).toBe(403);
    expect((await choose(watcher, true)).status).toBe(403);
    // Nor a page on another origin carrying the person in charge's cookie (and no CSRF token).
    const forged = await fetch(new URL(FILES_API.policy(desktop.id), admin.url), {
      method: 'PUT',
      headers: {
        origin: 'http://evil.example',
        cookie: admin.cookie,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ others_may_transfer: true }),
    });
    expect(forged.status).toBe(403);
    expect(await othersMay(admin)).toBe(false);

    expect((await choose(admin, true)).status).toBe(200);
    expect((await upload(controller, 'after.bin')).status).toBe(201);

    await stop();
    await start(false);
    expect(await othersMay(controller)).toBe(true);
    expect((await upload(controller, 'after restart.bin')).status).toBe(201);
    // A view grant never transfers, whatever the choice.
    expect((await upload(watcher, 'watcher.bin')).status).toBe(403);
  });

  it('ends when the charge moves, and the next person in charge chooses anew', async () => {
    expect((await choose(admin, true)).status).toBe(200);
    expect((await upload(other, 'dan before.bin')).status).toBe(201);
    // The charge moves to bea (what a plane writes when it moves the charge).
    await fixture!.store.desktops.update(desktop.id, { inChargeId: await personId('bea') });
    expect(await othersMay(other)).toBe(false);
    expect((await upload(other, 'dan after.bin')).status).toBe(403);
    // The one who made the choice is no longer in charge: they cannot make it again.
    expect((await choose(admin, true)).status).toBe(403);
    expect((await upload(controller, 'bea in charge.bin')).status).toBe(201);
    // Back to the owner: still off (it was the earlier charge's choice).
    await fixture!.store.desktops.update(desktop.id, { inChargeId: null });
    expect((await upload(other, 'dan later.bin')).status).toBe(403);
  });
});
