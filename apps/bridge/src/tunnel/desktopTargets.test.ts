// Where each kind of desktop record connects, on a real SQLite store with sealed credentials:
// a `vnc` record through the embedded gateway (with its join secret and the unsealed password), a
// `guacd-rdp` record through guacd with its own account, domain, security and keyboard, read-only
// records asking the server for read-only too, and clear refusals when the bridge lacks guacd or
// a gateway. Which desktop a tunnel ticket opens, and read-only for a view grant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RDP_DEFAULTS } from './upstream.js';
import { silentLogger } from '../logger.js';
import { newId } from '../store/ids.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { DesktopSecretBox } from '../desktops/credentials.js';
import { DesktopDirectory } from '../desktops/desktopDirectory.js';
import { desktopTargets } from './desktopTargets.js';

let fixture: TestAccess;
let box: DesktopSecretBox;
let directory: DesktopDirectory;
const gateway = {
  address: { path: '/run/gw.sock' },
  joinSecretArg: 'join-secret',
  joinSecret: 'j'.repeat(32),
};
const guacd = { host: '127.0.0.1', port: 4822 };

async function record(
  kind: 'vnc' | 'guacd-vnc' | 'guacd-rdp',
  params: Record<string, unknown>,
  password?: string,
): Promise<string> {
  const id = newId('dsk');
  await fixture.store.desktops.add({
    id,
    name: `${kind} ${id}`,
    kind,
    params,
    secret: password === undefined ? null : box.seal(id, { password }),
    ownerId: fixture.admin.id,
  });
  directory.invalidate();
  return id;
}

beforeAll(async () => {
  fixture = await startTestAccess();
  box = await DesktopSecretBox.open({ dataDir: fixture.dataDir, envKey: 'k'.repeat(40) });
  directory = new DesktopDirectory({ store: fixture.store, logger: silentLogger() });
});
afterAll(() => fixture.close());

describe('desktopTargets', () => {
  it('connects a vnc record through the gateway with its unsealed password', async () => {
    const id = await record('vnc', { host: 'vnc.internal', port: 5901 }, 'vnc-secret');
    const targets = desktopTargets({
      store: fixture.store,
      directory,
      logger: silentLogger(),
      secretBox: box,
      gateway,
    });
    expect(await targets.target(id)).toEqual({
      guacd: gateway.address,
      connection: {
        protocol: 'vnc',
        params: {
          hostname: 'vnc.internal',
          port: '5901',
          password: 'vnc-secret',
          'join-secret': gateway.joinSecret,
        },
      },
    });
  });

  it('connects a guacd-rdp record with its own account, and read-only when the record says so', async () => {
    const id = await record(
      'guacd-rdp',
      {
        host: 'rdp.internal',
        port: 3390,
        username: 'bea',
        domain: 'LAB',
        security: 'tls',
        keyboard: 'de-de-qwertz',
        read_only: true,
      },
      'bea-secret',
    );
    const targets = desktopTargets({
      store: fixture.store,
      directory,
      logger: silentLogger(),
      secretBox: box,
      guacd,
    });
    expect(await targets.target(id)).toEqual({
      guacd,
      connection: {
        protocol: 'rdp',
        params: {
          ...RDP_DEFAULTS,
          hostname: 'rdp.internal',
          port: '3390',
          username: 'bea',
          password: 'bea-secret',
          domain: 'LAB',
          security: 'tls',
          'server-layout': 'de-de-qwertz',
          'read-only': 'true',
        },
      },
    });
  });

  it('says what the bridge lacks instead of connecting somewhere else', async () => {
    const rdp = await record('guacd-rdp', { host: 'rdp.internal', port: 3389, username: 'x' });
    const vnc = await record('vnc', { host: 'vnc.internal', port: 5900 });
    const bare = desktopTargets({
      store: fixture.store,
      directory,
      logger: silentLogger(),
      secretBox: box,
    });
    await expect(bare.target(rdp)).rejects.toThrow(
      /needs Apache guacd: start the bridge with --guacd/,
    );
    await expect(bare.target(vnc)).rejects.toThrow(/embedded gateway/);
    await expect(bare.target('dsk_missing')).rejects.toThrow(/No desktop/);
  });

  it('pins a desktop whose host a member chose to the address checked, and refuses one aimed at this machine', async () => {
    const member = await fixture.store.people.add({
      username: 'mel',
      displayName: 'Mel',
      passwordHash: null,
      role: 'member',
    });
    const targets = desktopTargets({
      store: fixture.store,
      directory,
      logger: silentLogger(),
      secretBox: box,
      gateway,
    });
    const own = async (host: string): Promise<string> => {
      const id = newId('dsk');
      await fixture.store.desktops.add({
        id,
        name: `mel ${host}`,
        kind: 'vnc',
        params: { host, port: 5900 },
        secret: null,
        ownerId: member.id,
        targetSetByMember: true,
      });
      directory.invalidate();
      return id;
    };
    await expect(targets.target(await own('localhost'))).rejects.toThrow(/may not reach/);
    await expect(targets.target(await own('169.254.169.254'))).rejects.toThrow(/may not reach/);
    const fine = await targets.target(await own('192.0.2.10'));
    expect(fine.connection.params.hostname).toBe('192.0.2.10');
    // Where an admin points a desktop is taken as configured, whoever owns it.
    const adminsLocal = await record('vnc', { host: 'localhost', port: 5903 });
    await fixture.store.desktops.update(adminsLocal, { ownerId: member.id });
    directory.invalidate();
    expect((await targets.target(adminsLocal)).connection.params.hostname).toBe('localhost');
  });

  it('opens a ticket’s desktop only for someone who may see it, read-only for a view grant', async () => {
    const id = await record('vnc', { host: 'vnc.internal', port: 5902 });
    const bea = await fixture.store.people.add({
      username: 'bea',
      displayName: 'Bea',
      passwordHash: null,
      role: 'member',
    });
    const targets = desktopTargets({
      store: fixture.store,
      directory,
      logger: silentLogger(),
      secretBox: box,
      gateway,
    });
    expect(await targets.resolve(bea.id, id)).toMatchObject({ ok: false, status: 404 });
    await fixture.store.desktops.setGrant(id, bea.id, 'view');
    directory.invalidate();
    expect(await targets.resolve(bea.id, id)).toEqual({ ok: true, desktopId: id, readOnly: true });
    await fixture.store.desktops.setGrant(id, bea.id, 'control');
    directory.invalidate();
    expect(await targets.resolve(bea.id, id)).toEqual({ ok: true, desktopId: id, readOnly: false });
    expect(await targets.resolve(fixture.admin.id, id)).toEqual({
      ok: true,
      desktopId: id,
      readOnly: false,
    });
  });
});
