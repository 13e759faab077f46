// Test support: a data dir of its own with a store (SQLite) holding one admin and one desktop of
// theirs, and the recordings folder inside it — where the S3 tests put a recording a bridge left
// (its row and files) before they start a Recordings on it; and that admin and desktop alone, for
// a store opened otherwise (the site tests: PostgreSQL).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '../../../auth/passwords.js';
import { newId } from '../../../store/ids.js';
import { openStore } from '../../../store/openStore.js';
import type { DesktopRecord, PersonRecord, Store } from '../../../store/types.js';

export interface SpoolStore {
  store: Store;
  /** The recordings folder (`<data dir>/recordings`). */
  dir: string;
  owner: PersonRecord;
  desktop: DesktopRecord;
  /** Closes the store and removes the data dir. */
  close(): Promise<void>;
}

export async function openSpoolStore(name: string): Promise<SpoolStore> {
  const dataDir = await mkdtemp(join(tmpdir(), `oc-${name}-`));
  const store = await openStore({ dataDir });
  const { owner, desktop } = await seedOwnerAndDesktop(store);
  return {
    store,
    dir: join(dataDir, 'recordings'),
    owner,
    desktop,
    close: async () => {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** One admin, Ada, and one desktop of hers, "Office PC", in `store`. */
export async function seedOwnerAndDesktop(
  store: Store,
): Promise<{ owner: PersonRecord; desktop: DesktopRecord }> {
  const owner = await store.people.add({
    username: 'ada',
    displayName: 'Ada',
    passwordHash: await hashPassword('another-password-0123456789'),
    role: 'admin',
  });
  const desktop = await store.desktops.add({
    id: newId('dsk'),
    name: 'Office PC',
    kind: 'vnc',
    params: {},
    secret: null,
    ownerId: owner.id,
  });
  return { owner, desktop };
}
