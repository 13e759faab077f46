// Storage suite, what people and the bridge choose: permission toggles (defaults, patches, every
// toggle both ways), bridge-wide settings as JSON, and monitor layouts.
import { expect, test } from 'vitest';
import {
  AUDIT_PREFERENCE_NAMES,
  PERMISSION_DEFAULTS,
  PERMISSION_NAMES,
} from '@overlay-companion/protocol';
import { StoreConflictError } from '../../types.js';
import { addPerson, type Backend } from '../fixture.js';

export function preferencesSuite(backend: Backend): void {
  test('permissions: a person who never chose gets PERMISSION_DEFAULTS', async () => {
    const { store } = await backend.fresh();
    const person = await addPerson(store);
    expect(await store.permissions.get(person.id)).toEqual(PERMISSION_DEFAULTS);
    expect(await store.permissions.update(person.id, {})).toEqual(PERMISSION_DEFAULTS);
  });

  test('permissions: every toggle can be flipped and flipped back', async () => {
    const { store } = await backend.fresh();
    const person = await addPerson(store);
    for (const name of [...PERMISSION_NAMES, ...AUDIT_PREFERENCE_NAMES]) {
      const flipped = { ...PERMISSION_DEFAULTS, [name]: !PERMISSION_DEFAULTS[name] };
      expect(
        await store.permissions.update(person.id, { [name]: !PERMISSION_DEFAULTS[name] }),
      ).toEqual(flipped);
      expect(await store.permissions.get(person.id)).toEqual(flipped);
      await store.permissions.update(person.id, { [name]: PERMISSION_DEFAULTS[name] });
    }
    expect(await store.permissions.get(person.id)).toEqual(PERMISSION_DEFAULTS);
  });

  test('permissions: patches add up, and stay with their person', async () => {
    const { store } = await backend.fresh();
    const person = await addPerson(store);
    const other = await addPerson(store);
    await store.permissions.update(person.id, { clipboard_read: true });
    // Two windows changing different toggles at once must not undo each other.
    await Promise.all([
      store.permissions.update(person.id, { read_key_events: true }),
      store.permissions.update(person.id, { screenshots: false }),
    ]);
    expect(await store.permissions.get(person.id)).toEqual({
      ...PERMISSION_DEFAULTS,
      clipboard_read: true,
      read_key_events: true,
      screenshots: false,
    });
    expect(await store.permissions.get(other.id)).toEqual(PERMISSION_DEFAULTS);
    await expect(store.permissions.update('p_gone', { screenshots: false })).rejects.toThrow(
      StoreConflictError,
    );
  });

  test('settings: JSON values round-trip; set overwrites; unknown keys are undefined', async () => {
    const { store } = await backend.fresh();
    const values: unknown[] = [
      { retention_days: 30, nested: { list: [1, 'two', null, true], quote: `it's "quoted"` } },
      ['a', 1.5, -2, false],
      'plain string',
      42,
      null,
      true,
    ];
    for (const [i, value] of values.entries()) await store.settings.set(`key${i}`, value);
    for (const [i, value] of values.entries()) {
      expect(await store.settings.get(`key${i}`)).toEqual(value);
    }
    await store.settings.set('key0', { retention_days: 7 });
    expect(await store.settings.get('key0')).toEqual({ retention_days: 7 });
    expect(await store.settings.get('missing')).toBeUndefined();
    await expect(store.settings.set('bad', undefined)).rejects.toThrow(/not JSON-serializable/);
  });

  test('layouts: put, list by name, overwrite, remove; each person has their own', async () => {
    const { store } = await backend.fresh();
    const person = await addPerson(store);
    const other = await addPerson(store);
    const wide = { monitors: [{ x: 0, y: 0, width: 2560, height: 1440, primary: true }] };
    await store.layouts.put({ personId: person.id, name: 'office', layout: wide, updatedAt: 1 });
    await store.layouts.put({
      personId: person.id,
      name: 'home',
      layout: { monitors: [] },
      updatedAt: 2,
    });
    await store.layouts.put({ personId: other.id, name: 'office', layout: {}, updatedAt: 3 });
    expect(await store.layouts.list(person.id)).toEqual([
      { personId: person.id, name: 'home', layout: { monitors: [] }, updatedAt: 2 },
      { personId: person.id, name: 'office', layout: wide, updatedAt: 1 },
    ]);
    await store.layouts.put({ personId: person.id, name: 'home', layout: { v: 2 }, updatedAt: 4 });
    expect((await store.layouts.list(person.id))[0]).toEqual({
      personId: person.id,
      name: 'home',
      layout: { v: 2 },
      updatedAt: 4,
    });
    expect(await store.layouts.remove(person.id, 'home')).toBe(true);
    expect(await store.layouts.remove(person.id, 'home')).toBe(false);
    expect((await store.layouts.list(person.id)).map((l) => l.name)).toEqual(['office']);
    expect(await store.layouts.list(other.id)).toHaveLength(1);
    await expect(
      store.layouts.put({ personId: 'p_gone', name: 'x', layout: {}, updatedAt: 1 }),
    ).rejects.toThrow(StoreConflictError);
  });
}
