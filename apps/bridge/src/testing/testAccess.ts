// Test support: a real Access (SQLite store in a temporary data dir, sessions, tickets, audit)
// with an admin person, for tests that start the bridge or its parts without the CLI. The admin's
// password hash is computed once per test file (argon2 is deliberately slow).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TicketSocket } from '@overlay-companion/protocol';
import type { Logger } from 'pino';
import { AuditLog } from '../audit/auditLog.js';
import type { AuditQueueLimits } from '../audit/auditQueue.js';
import { createAccess, type Access, type AccessOptions } from '../auth/access.js';
import { hashPassword } from '../auth/passwords.js';
import { registerSecret, testLogger } from './testLogs.js';
import { openStore } from '../store/openStore.js';
import type { PersonRecord, Store } from '../store/types.js';
import { removeDataDir } from './dataDirs.js';

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'admin-password-0123456789';
registerSecret(ADMIN_PASSWORD);

let adminHash: Promise<string> | undefined;

export interface TestAccess {
  /** Where the bridge's logs go (the run's log dir when there is one, else nowhere). */
  logger: Logger;
  dataDir: string;
  store: Store;
  access: Access;
  /** The admin (a placeholder record that is not stored when started with `admin: false`). */
  admin: PersonRecord;
  /** A ticket for the admin on a fresh in-process sign-in session (no HTTP involved). */
  ticket(socket: TicketSocket, personId?: string): Promise<string>;
  close(): Promise<void>;
}

export type TestAccessOptions = Partial<Omit<AccessOptions, 'store' | 'logger'>> & {
  logger?: AccessOptions['logger'];
  /** false: a bridge on its first run (no admin yet). */
  admin?: boolean;
  /** A data dir of the test's own (kept at close) instead of a temporary one. */
  dataDir?: string;
  /** PostgreSQL instead of SQLite (testing/postgres.ts). */
  databaseUrl?: string;
  /** The audit queue's bounds (fault tests make them small). */
  auditQueue?: AuditQueueLimits;
};

export async function startTestAccess(options: TestAccessOptions = {}): Promise<TestAccess> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'oc-bridge-test-')));
  const store = await openStore({ dataDir, databaseUrl: options.databaseUrl });
  adminHash ??= hashPassword(ADMIN_PASSWORD);
  const adminRecord = {
    username: ADMIN_USERNAME,
    displayName: 'Ada Admin',
    passwordHash: await adminHash,
    role: 'admin' as const,
  };
  const admin: PersonRecord =
    options.admin === false
      ? {
          id: 'p_none',
          ...adminRecord,
          disabled: false,
          oidcIssuer: null,
          oidcSubject: null,
          createdAt: 0,
          updatedAt: 0,
        }
      : await store.people.add(adminRecord);
  const {
    admin: _admin,
    dataDir: _dataDir,
    databaseUrl: _databaseUrl,
    auditQueue,
    ...accessOptions
  } = options;
  const logger = options.logger ?? testLogger('bridge-test');
  const created = createAccess({ ...accessOptions, store, logger });
  const access = withAuditQueue(created, store, logger, auditQueue, options.now);
  return {
    logger,
    dataDir,
    store,
    access,
    admin,
    ticket: async (socket, personId = admin.id) => {
      const person = await store.people.byId(personId);
      if (person === undefined) throw new Error(`no person ${personId}`);
      const { session } = await access.sessions.create(person, 'password', 'test');
      const issued = access.tickets.issue({
        personId,
        sessionIdHash: session.idHash,
        socket,
        headless: false,
      });
      if (!issued.ok) throw new Error(issued.message);
      return issued.ticket;
    },
    close: async () => {
      await access.close();
      await store.close();
      if (ownDir) await removeDataDir(dataDir);
    },
  };
}

/**
 * `access` with an audit log of the queue bounds `limits` in place of its own (createAccess has
 * no option for the bounds yet); `access` itself without them.
 */
export function withAuditQueue(
  access: Access,
  store: Store,
  logger: Logger,
  limits: AuditQueueLimits | undefined,
  now?: () => number,
): Access {
  if (limits === undefined) return access;
  const audit = new AuditLog(store, logger.child({ part: 'audit' }), now, limits);
  return {
    ...access,
    audit,
    close: async () => {
      await access.close();
      await audit.stop();
    },
  };
}
