// Storage suite, "others may transfer files" (migration 0008): the person in charge's choice
// survives a restart; only the person in charge now can make it; it ends when the charge moves
// (also when the charge comes back: it was the earlier charge's choice) or the owner changes;
// and it goes with its desktop.
import { expect, test } from 'vitest';
import { addDesktop, addPerson, type Backend } from '../fixture.js';

export function transferPolicySuite(backend: Backend): void {
  const setUp = async () => {
    const fixture = await backend.fresh();
    const owner = await addPerson(fixture.store);
    const other = await addPerson(fixture.store);
    const desktop = await addDesktop(fixture.store, owner.id);
    return { ...fixture, owner, other, desktop };
  };

  test('the choice of the person in charge survives a restart', async () => {
    const fixture = await setUp();
    const { owner, desktop } = fixture;
    expect(await fixture.store.transferPolicy.othersMay(desktop.id)).toBe(false);
    expect(await fixture.store.transferPolicy.set(desktop.id, owner.id, true)).toBe(true);
    const store = await fixture.restart();
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(true);
    expect(await store.transferPolicy.set(desktop.id, owner.id, false)).toBe(true);
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(false);
  });

  test('only the person in charge now may choose', async () => {
    const { store, owner, other, desktop } = await setUp();
    expect(await store.transferPolicy.set(desktop.id, other.id, true)).toBe(false);
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(false);
    await store.desktops.update(desktop.id, { inChargeId: other.id });
    expect(await store.transferPolicy.set(desktop.id, owner.id, true)).toBe(false);
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(false);
    expect(await store.transferPolicy.set(desktop.id, other.id, true)).toBe(true);
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(true);
    expect(await store.transferPolicy.set('dsk_gone', other.id, true)).toBe(false);
  });

  test('a charge move ends it, and the charge coming back does not bring it back', async () => {
    const { store, owner, other, desktop } = await setUp();
    await store.transferPolicy.set(desktop.id, owner.id, true);
    await store.desktops.update(desktop.id, { name: 'Renamed PC' });
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(true);
    await store.desktops.update(desktop.id, { inChargeId: other.id });
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(false);
    await store.desktops.update(desktop.id, { inChargeId: null });
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(false);
    await store.transferPolicy.set(desktop.id, owner.id, true);
    await store.desktops.update(desktop.id, { ownerId: other.id });
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(false);
  });

  test('goes with its desktop', async () => {
    const { store, owner, desktop } = await setUp();
    await store.transferPolicy.set(desktop.id, owner.id, true);
    await store.desktops.remove(desktop.id);
    expect(await store.transferPolicy.othersMay(desktop.id)).toBe(false);
  });
}
