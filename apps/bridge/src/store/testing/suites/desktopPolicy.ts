// Storage suite, each desktop's AI policy (migration 0005): the mode and the standing
// permissions are written apart (neither undoes the other), survive a restart, go with their
// desktop or person, and a write for a desktop that is gone writes nothing. And the site's id,
// made once per database.
import { expect, test } from 'vitest';
import { addDesktop, addPerson, type Backend } from '../fixture.js';

export function desktopPolicySuite(backend: Backend): void {
  const setUp = async () => {
    const fixture = await backend.fresh();
    const owner = await addPerson(fixture.store);
    const desktop = await addDesktop(fixture.store, owner.id);
    return { ...fixture, owner, desktop };
  };

  test('mode and standing permissions: written apart, read back after a restart', async () => {
    const fixture = await setUp();
    const { owner, desktop, clock } = fixture;
    expect(await fixture.store.desktopPolicy.get(desktop.id)).toBeUndefined();
    expect(
      await fixture.store.desktopPolicy.setMode(desktop.id, owner.id, 'custom', {
        allow: ['click_at'],
      }),
    ).toBe(true);
    const standing = [{ id: 'standing_3', number: 3, tool: 'click_at' }];
    clock.now += 5;
    expect(await fixture.store.desktopPolicy.setStanding(desktop.id, owner.id, standing, 3)).toBe(
      true,
    );
    const store = await fixture.restart();
    expect(await store.desktopPolicy.get(desktop.id)).toEqual({
      desktopId: desktop.id,
      personId: owner.id,
      mode: 'custom',
      modeMetadata: { allow: ['click_at'] },
      standing,
      standingCounter: 3,
      updatedAt: clock.now,
    });
    await store.desktopPolicy.setMode(desktop.id, owner.id, 'passive', undefined);
    expect(await store.desktopPolicy.get(desktop.id)).toMatchObject({
      mode: 'passive',
      modeMetadata: null,
      standing,
    });
  });

  test('standing written first leaves the mode unset; the row names whose policy it is', async () => {
    const { store, owner, desktop } = await setUp();
    const other = await addPerson(store);
    await store.desktopPolicy.setStanding(desktop.id, owner.id, [], 1);
    expect(await store.desktopPolicy.get(desktop.id)).toMatchObject({
      mode: null,
      personId: owner.id,
    });
    await store.desktopPolicy.setMode(desktop.id, other.id, 'assist', undefined);
    expect(await store.desktopPolicy.get(desktop.id)).toMatchObject({
      mode: 'assist',
      personId: other.id,
    });
  });

  test('gone with its desktop or person; nothing written for a desktop that is gone', async () => {
    const { store, owner, desktop } = await setUp();
    await store.desktopPolicy.setMode(desktop.id, owner.id, 'autopilot', undefined);
    expect(await store.desktopPolicy.setMode('dsk_gone', owner.id, 'autopilot', undefined)).toBe(
      false,
    );
    expect(await store.desktopPolicy.setStanding(desktop.id, 'p_gone', [], 0)).toBe(false);
    expect(await store.desktops.remove(desktop.id)).toBe(true);
    expect(await store.desktopPolicy.get(desktop.id)).toBeUndefined();
    expect(await store.desktopPolicy.get('dsk_gone')).toBeUndefined();
  });

  test('the site id: made once with the database, the same after a restart', async () => {
    const fixture = await backend.fresh();
    const id = await fixture.store.settings.get('site_id');
    expect(id).toMatch(/^[0-9a-f]{18}$/);
    const store = await fixture.restart();
    expect(await store.settings.get('site_id')).toBe(id);
  });
}
