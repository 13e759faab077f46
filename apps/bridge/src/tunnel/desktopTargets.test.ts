// Where each kind of desktop record connects, on a real SQLite store with sealed credentials:
// a `vnc` record through the embedded gateway (with its join secret and the unsealed password), a
// `guacd-rdp` record through guacd with its own account, domain, security and keyboard, read-only
// records asking the server for read-only too, and clear refusals when the bridge lacks guacd or
// a gateway. Which desktop a tunnel ticket opens, and read-only for a view grant. Local records
// start real sandboxed Xvnc desktops, a member's no more at once than the admin's setting allows
// (runningLimit.ts): a start past it is refused, an admin's desktops are not counted.
import { DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS } from '@overlay-companion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RDP_DEFAULTS } from './upstream.js';
import { silentLogger } from '../logger.js';
import { newId } from '../store/ids.js';
import { startTestAccess, type TestAccess } from '../testing/testAccess.js';
import { DesktopSecretBox } from '../desktops/credentials.js';
import { DesktopDirectory } from '../desktops/desktopDirectory.js';
import { desktopTargets, type DesktopTargetsOptions } from './desktopTargets.js';
import { LocalDesktopPool, tooManyRunningMessage } from '../desktops/localDesktopPool.js';
import { MEMBER_RUNNING_LOCAL_DESKTOPS_KEY } from '../desktops/runningLimit.js';

let fixture: TestAccess;
let box: DesktopSecretBox;
let directory: DesktopDirectory;
const gateway = {
  address: { path: '/run/gw.sock' },
  joinSecretArg: 'join-secret',
  joinSecret: 'j'.repeat(32),
};
const guacd = { host: '127.0.0.1', port: 4822 };

/** A desktop record (the admin's unless `ownerId` says whose), its id. */
async function record(
  kind: 'local' | 'vnc' | 'guacd-vnc' | 'guacd-rdp',
  params: Record<string, unknown>,
  options: { password?: string; ownerId?: string; targetSetByMember?: boolean } = {},
): Promise<string> {
  const { password, ownerId = fixture.admin.id, targetSetByMember } = options;
  const id = newId('dsk');
  await fixture.store.desktops.add({
    id,
    name: `${kind} ${id}`,
    kind,
    params,
    secret: password === undefined ? null : box.seal(id, { password }),
    ownerId,
    ...(targetSetByMember === undefined ? {} : { targetSetByMember }),
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

/** The targets over this file's store and directory, with what the bridge has (`has`). */
const targetsWith = (has: Partial<DesktopTargetsOptions>) =>
  desktopTargets({
    store: fixture.store,
    directory,
    logger: silentLogger(),
    secretBox: box,
    ...has,
  });

describe('desktopTargets', () => {
  it('connects a vnc record through the gateway with its unsealed password', async () => {
    const id = await record(
      'vnc',
      { host: 'vnc.internal', port: 5901 },
      { password: 'vnc-secret' },
    );
    const targets = targetsWith({ gateway });
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
      { password: 'bea-secret' },
    );
    const targets = targetsWith({ guacd });
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
    const bare = targetsWith({});
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
    const targets = targetsWith({ gateway });
    const own = (host: string): Promise<string> =>
      record('vnc', { host, port: 5900 }, { ownerId: member.id, targetSetByMember: true });
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
    const targets = targetsWith({ gateway });
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

  it('starts no more of a member’s local desktops at once than the setting allows; an admin’s are not counted', async () => {
    const pool = new LocalDesktopPool({
      logger: silentLogger(),
      allowSocket: () => () => undefined,
      inUse: () => true,
    });
    try {
      const member = await fixture.store.people.add({
        username: 'many',
        displayName: 'Manny',
        passwordHash: null,
        role: 'member',
      });
      const local = (ownerId: string): Promise<string> =>
        record('local', { idle_stop_minutes: 5 }, { ownerId });
      const targets = targetsWith({ gateway, localDesktops: pool });
      await fixture.store.settings.set(MEMBER_RUNNING_LOCAL_DESKTOPS_KEY, 1);
      const [first, second, third] = [
        await local(member.id),
        await local(member.id),
        await local(member.id),
      ];
      // Asked at the same moment, one starts and the others are refused, saying what to do.
      const outcomes = await Promise.allSettled([
        targets.target(first),
        targets.target(second),
        targets.target(third),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected', 'rejected']);
      for (const o of outcomes)
        if (o.status === 'rejected')
          expect((o.reason as Error).message).toBe(tooManyRunningMessage(1));
      const started = [first, second, third].filter(
        (_id, i) => outcomes[i]?.status === 'fulfilled',
      );
      expect(started).toHaveLength(1);
      // Asking again for the one running is no new start.
      await expect(targets.target(started[0] ?? '')).resolves.toBeDefined();
      // An admin's local desktops do not count, and are not held to it.
      const adminsOwn = [await local(fixture.admin.id), await local(fixture.admin.id)];
      for (const id of adminsOwn) await expect(targets.target(id)).resolves.toBeDefined();
      // Raised by the admin, one more of the member's starts; the next is refused again.
      await fixture.store.settings.set(MEMBER_RUNNING_LOCAL_DESKTOPS_KEY, 2);
      const waiting = [first, second, third].filter((id) => id !== started[0]);
      await expect(targets.target(waiting[0] ?? '')).resolves.toBeDefined();
      await expect(targets.target(waiting[1] ?? '')).rejects.toThrow(tooManyRunningMessage(2));
      // Once one stops, another may start.
      await pool.stop(waiting[0] ?? '');
      await expect(targets.target(waiting[1] ?? '')).resolves.toBeDefined();
      // A stored value the schema refuses is the default, never no limit.
      await fixture.store.settings.set(MEMBER_RUNNING_LOCAL_DESKTOPS_KEY, 0);
      const more = [await local(member.id), await local(member.id), await local(member.id)];
      const refused = await Promise.allSettled(more.map((id) => targets.target(id)));
      // Two run; the default lets that many more start as it allows beyond them, no more.
      expect(refused.filter((o) => o.status === 'fulfilled')).toHaveLength(
        DEFAULT_MEMBER_RUNNING_LOCAL_DESKTOPS - 2,
      );
    } finally {
      await pool.close();
    }
  }, 60_000);
});
