// What the shared storage suite runs against: a backend (SQLite, or a real PostgreSQL from
// testing/postgres.ts) that hands each test a fresh, empty store with a clock the test moves,
// and can reopen the same database to prove data survives a restart. Everything a test opens is
// closed and deleted when the test finishes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { openStore } from '../openStore.js';
import { newId } from '../ids.js';
import type { DesktopRecord, NewPerson, PersonRecord, Store } from '../types.js';

export interface StoreFixture {
  store: Store;
  /** The data dir this store was opened with. */
  dataDir: string;
  /** The store's clock (ms); tests set it to control createdAt/updatedAt. */
  clock: { now: number };
  /** Closes the store and opens the same database again, like a bridge restart. */
  restart(): Promise<Store>;
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty store for one test. */
  fresh(): Promise<StoreFixture>;
}

/** A backend whose databases come from `newDatabaseUrl` (undefined: SQLite in the data dir). */
export function backend(
  name: Backend['name'],
  newDatabaseUrl: () => Promise<string | undefined>,
): Backend {
  return {
    name,
    async fresh() {
      const root = await mkdtemp(join(tmpdir(), `oc-store-${name}-`));
      const dataDir = join(root, 'data');
      const databaseUrl = await newDatabaseUrl();
      const clock = { now: 1_700_000_000_000 };
      const open = () => openStore({ dataDir, databaseUrl, now: () => clock.now });
      let store = await open();
      onTestFinished(async () => {
        await store.close();
        await rm(root, { recursive: true, force: true });
      });
      return {
        get store() {
          return store;
        },
        dataDir,
        clock,
        async restart() {
          await store.close();
          store = await open();
          return store;
        },
      };
    },
  };
}

let counter = 0;

/** Adds a person with sensible defaults; `username` is unique per call unless given. */
export function addPerson(store: Store, person: Partial<NewPerson> = {}): Promise<PersonRecord> {
  counter += 1;
  return store.people.add({
    username: `person${counter}`,
    displayName: `Person ${counter}`,
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    role: 'member',
    ...person,
  });
}

/** Adds a VNC desktop "Office PC" (no parameters, no secret) owned by `ownerId`. */
export function addDesktop(store: Store, ownerId: string): Promise<DesktopRecord> {
  return store.desktops.add({
    id: newId('dsk'),
    name: 'Office PC',
    kind: 'vnc',
    params: {},
    secret: null,
    ownerId,
  });
}

/** Strings that break a query if they are ever spliced into SQL instead of bound. */
export const INJECTION_STRINGS = [
  "'; DROP TABLE people; --",
  '" OR 1=1 --',
  "' OR '1'='1",
  "robert'); drop table audit_log;--",
  "\\'; select pg_sleep(5); --",
  '%_*?[]',
  'null',
  // No NUL: PostgreSQL text cannot hold one (SQLSTATE 22021); input must be refused before it.
  'line\nbreak\ttab',
  'ünïcödé ✓ 𝄞',
] as const;
